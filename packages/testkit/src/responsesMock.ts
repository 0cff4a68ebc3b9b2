/**
 * A model for Codex CLI (issue 31): 0.171.0 takes a custom provider only with
 * `wire_api = "responses"`, so this is an OpenAI Responses API server on
 * loopback. Every POST to `/v1/responses` is recorded (what the CLI sent the
 * model: the IDE context it adds is in its user message) and answered with
 * the next scripted text, streamed as the events the CLI reads:
 * response.created, response.output_item.added, response.output_text.delta,
 * response.output_item.done, response.completed. Anything else gets 404.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResponsesMock {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** The bodies of the requests to /v1/responses, in order. */
  requests(): string[];
  close(): Promise<void>;
}

export async function startResponsesMock(texts: readonly string[]): Promise<ResponsesMock> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}');
        return;
      }
      const n = requests.push(body);
      const text = texts[n - 1] ?? 'Done.';
      const id = `resp_mock_${n}`;
      const itemId = `msg_mock_${n}`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let sequence = 0;
      const send = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
      const message = (content: unknown[]) => ({ id: itemId, type: 'message', role: 'assistant', status: 'completed', content });
      send('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
      send('response.output_item.added', { output_index: 0, item: { ...message([]), status: 'in_progress' } });
      send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: text });
      send('response.output_item.done', { output_index: 0, item: message([{ type: 'output_text', text, annotations: [] }]) });
      send('response.completed', {
        response: {
          id,
          object: 'response',
          status: 'completed',
          output: [],
          usage: {
            input_tokens: 10,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 2,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 12,
          },
        },
      });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => [...requests],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
