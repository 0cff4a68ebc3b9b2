/**
 * A model for agents that take an OpenAI-compatible endpoint (Qwen Code): a
 * chat.completions server on loopback that streams scripted turns. The main
 * agent's requests (its system prompt starts with `agentPrompt`) get the next
 * turn of the script, counted by the assistant messages already in the
 * conversation; anything else (a memory or classifier subagent) gets a short
 * text, so no background request can run a tool.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedTurn = { text: string } | { tool: string; args: Record<string, unknown> };

/** A model that reads `file` (Qwen Code refuses a blind overwrite), proposes `content` for it with write_file, then says it is done. */
export function proposeWriteTurns(file: string, content: string): ScriptedTurn[] {
  return [{ tool: 'read_file', args: { file_path: file } }, { tool: 'write_file', args: { file_path: file, content } }, { text: 'Done.' }];
}

export interface OpenAiMock {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** How many main-agent turns were answered. */
  turnsServed(): number;
  /** The main agent's requests, in order: what it sent the model (the IDE context the CLI adds is in there). */
  agentRequests(): string[];
  close(): Promise<void>;
}

export async function startOpenAiMock(script: readonly ScriptedTurn[], agentPrompt = 'You are Qwen Code'): Promise<OpenAiMock> {
  let served = 0;
  const agentRequests: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let request: { messages?: Array<{ role: string; content?: unknown }> } = {};
      try {
        request = JSON.parse(body) as typeof request;
      } catch {
        // answered with text below
      }
      const messages = request.messages ?? [];
      const system = messages.find((m) => m.role === 'system');
      const isAgent = typeof system?.content === 'string' && system.content.startsWith(agentPrompt);
      const turn: ScriptedTurn = isAgent ? (script[messages.filter((m) => m.role === 'assistant').length] ?? { text: 'Done.' }) : { text: 'Nothing to do.' };
      if (isAgent) {
        served++;
        agentRequests.push(body);
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (delta: Record<string, unknown>, finish: string | null = null) =>
        res.write(
          `data: ${JSON.stringify({ id: 'mock', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      if ('text' in turn) {
        send({ role: 'assistant', content: turn.text });
        send({}, 'stop');
      } else {
        send({
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: `call_${served}`, type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.args) } }],
        });
        send({}, 'tool_calls');
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    turnsServed: () => served,
    agentRequests: () => [...agentRequests],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
