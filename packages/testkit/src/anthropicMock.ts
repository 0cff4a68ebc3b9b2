/**
 * A model for Claude Code (issue 19): an Anthropic Messages API server on
 * loopback (`ANTHROPIC_BASE_URL`) that streams scripted turns. The main
 * agent's requests (its system prompt names Claude Code and it offers the
 * Write tool) get the next turn of the script, counted by the assistant
 * messages already in the conversation; anything else (a title, a topic or a
 * safety check) gets a short text, so no background request can run a tool.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedTurn } from './openAiMock.js';

/** Claude Code's tools: Read first (Write refuses a file it has not read), then Write. */
export function claudeProposeWriteTurns(file: string, content: string): ScriptedTurn[] {
  return [{ tool: 'Read', args: { file_path: file } }, { tool: 'Write', args: { file_path: file, content } }, { text: 'Done.' }];
}

export interface AnthropicMock {
  /** `http://127.0.0.1:PORT`, for ANTHROPIC_BASE_URL. */
  baseUrl: string;
  turnsServed(): number;
  /** The main agent's request bodies, in order (what the CLI added from the IDE is in there). */
  agentRequests(): string[];
  close(): Promise<void>;
}

interface MessagesRequest {
  stream?: boolean;
  system?: string | Array<{ text?: string }>;
  tools?: Array<{ name?: string }>;
  messages?: Array<{ role: string }>;
}

function systemText(request: MessagesRequest): string {
  const { system } = request;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((block) => block.text ?? '').join('\n') : '';
}

/** The content blocks of one turn, as the Messages API returns them. */
function contentOf(turn: ScriptedTurn, id: number): Array<Record<string, unknown>> {
  if ('text' in turn) return [{ type: 'text', text: turn.text }];
  return [{ type: 'tool_use', id: `toolu_mock_${id}`, name: turn.tool, input: turn.args }];
}

/** The same message as server-sent events: start, one block each (tool input as one JSON delta), stop. */
function streamOf(message: Record<string, unknown>, content: Array<Record<string, unknown>>): string {
  const events: Array<[string, Record<string, unknown>]> = [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
  ];
  content.forEach((block, index) => {
    if (block['type'] === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block['text'] } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }]);
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) } },
      ]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: message['stop_reason'], stop_sequence: null }, usage: { output_tokens: 1 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

export async function startAnthropicMock(script: readonly ScriptedTurn[]): Promise<AnthropicMock> {
  let served = 0;
  let ids = 0;
  const agentRequests: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = req.url ?? '';
      if (url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 1 }));
        return;
      }
      if (!url.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }));
        return;
      }
      let request: MessagesRequest = {};
      try {
        request = JSON.parse(body) as MessagesRequest;
      } catch {
        // answered with text below
      }
      const isAgent = /Claude Code/.test(systemText(request)) && (request.tools ?? []).some((tool) => tool.name === 'Write');
      const messages = request.messages ?? [];
      const turn: ScriptedTurn = isAgent ? (script[messages.filter((m) => m.role === 'assistant').length] ?? { text: 'Done.' }) : { text: 'Nothing to do.' };
      if (isAgent) {
        served++;
        agentRequests.push(body);
      }
      const content = contentOf(turn, ++ids);
      const message = {
        id: `msg_mock_${ids}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-mock',
        stop_reason: 'text' in turn ? 'end_turn' : 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      if (request.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.end(streamOf(message, content));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, content }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    turnsServed: () => served,
    agentRequests: () => [...agentRequests],
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
