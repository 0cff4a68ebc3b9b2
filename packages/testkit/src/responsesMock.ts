/**
 * A model for Codex (issue 31; codex-acp, issue 38): Codex takes a custom provider only with
 * `wire_api = "responses"`, so this is an OpenAI Responses API server on loopback. Every POST
 * to `/v1/responses` is recorded (what Codex sent the model: the IDE context it adds is in its
 * user message) and answered, streamed as the events Codex reads: response.created,
 * response.output_item.added, response.output_text.delta (a text), response.output_item.done,
 * response.completed. Anything else gets 404.
 *
 * `startResponsesMock(texts)` answers the Nth request with the Nth text. `startScriptedResponsesMock(script)`
 * answers with the next turn of a script, counted by the model's own items already in the request's input
 * (its messages and tool calls): a text, or a tool call (`function_call`, or `custom_tool_call` for a
 * freeform tool such as apply_patch with `{ input }` as its args).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedTurn } from './openAiMock.js';

export interface ResponsesMock {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** The bodies of the requests to /v1/responses, in order. */
  requests(): string[];
  /** The same (Codex's requests are all its agent's): the name the other model mocks give them. */
  agentRequests(): string[];
  close(): Promise<void>;
}

/** A tool call of the script: `custom` for a freeform tool (Codex's apply_patch takes the patch as raw input). */
export type ResponsesTurn = ScriptedTurn | { tool: string; input: string; custom: true };

interface ResponsesRequest {
  input?: Array<{ type?: string; role?: string }>;
  tools?: Array<{ type?: string; name?: string }>;
}

/** The model's items already in the conversation: how many turns of the script it has had. */
function turnsTaken(body: string): number {
  let request: ResponsesRequest = {};
  try {
    request = JSON.parse(body) as ResponsesRequest;
  } catch {
    return 0;
  }
  return (request.input ?? []).filter(
    (item) => (item.type === 'message' && item.role === 'assistant') || item.type === 'function_call' || item.type === 'custom_tool_call',
  ).length;
}

function outputItem(turn: ResponsesTurn, n: number): Record<string, unknown> {
  if ('text' in turn) {
    return {
      id: `msg_mock_${n}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    };
  }
  if ('custom' in turn)
    return { id: `ctc_mock_${n}`, type: 'custom_tool_call', status: 'completed', call_id: `call_mock_${n}`, name: turn.tool, input: turn.input };
  return { id: `fc_mock_${n}`, type: 'function_call', status: 'completed', call_id: `call_mock_${n}`, name: turn.tool, arguments: JSON.stringify(turn.args) };
}

async function serveResponses(pick: (body: string, n: number) => ResponsesTurn): Promise<ResponsesMock> {
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
      const turn = pick(body, n);
      const id = `resp_mock_${n}`;
      const item = outputItem(turn, n);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let sequence = 0;
      const send = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
      send('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
      if ('text' in turn) {
        send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
        send('response.output_text.delta', { item_id: item['id'], output_index: 0, content_index: 0, delta: turn.text });
      } else {
        send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
      }
      send('response.output_item.done', { output_index: 0, item });
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
    agentRequests: () => [...requests],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Nth request answered with the Nth text ("Done." past the end). */
export function startResponsesMock(texts: readonly string[]): Promise<ResponsesMock> {
  return serveResponses((_body, n) => ({ text: texts[n - 1] ?? 'Done.' }));
}

/** Each request answered with the turn of `script` after the model's items already in its input ("Done." past the end). */
export function startScriptedResponsesMock(script: readonly ResponsesTurn[]): Promise<ResponsesMock> {
  return serveResponses((body) => script[turnsTaken(body)] ?? { text: 'Done.' });
}
