/**
 * The SDK's path for an agent's `session/update`, taken once before the first turn. The first update a process
 * takes is slow (5 to 13 ms measured on a loaded machine, 0.3 ms for the first update of a later connection):
 * V8 compiles the SDK's notification path on its first call, and zod builds each schema's parser on its first
 * use (the SDK parses every update with them). Left to the agent's first streamed chunk, that made the first
 * chunk of the first turn the slowest (bench/acp-agent.mjs, docs/benchmarks.md). Here a throwaway client on
 * in-memory streams takes one update of each kind the terminal shows, parsed by the same schema objects; the
 * agent's connection then finds them compiled.
 */
import { client, methods } from '@agentclientprotocol/sdk';
import type { AnyMessage, SessionUpdate } from '@agentclientprotocol/sdk';

/** One update of each kind the terminal shows. */
export const WARM_UP_SAMPLES: readonly SessionUpdate[] = [
  { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'warm-up' } },
  { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'warm-up' } },
  {
    sessionUpdate: 'tool_call',
    toolCallId: 'warm-up',
    title: 'warm-up',
    kind: 'edit',
    status: 'pending',
    content: [{ type: 'diff', path: '/warm-up', oldText: 'a', newText: 'b' }],
    locations: [{ path: '/warm-up' }],
  },
  { sessionUpdate: 'tool_call_update', toolCallId: 'warm-up', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'warm-up' } }] },
  { sessionUpdate: 'plan', entries: [{ content: 'warm-up', priority: 'medium', status: 'pending' }] },
  { sessionUpdate: 'current_mode_update', currentModeId: 'warm-up' },
];

/** Resolves with the samples as the SDK parsed them and handed them on (all, unless it refused one), within `timeoutMs`; never rejects. */
export async function warmSessionUpdates(timeoutMs = 2_000): Promise<SessionUpdate[]> {
  const seen: SessionUpdate[] = [];
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (done = resolve));
  const app = client({ name: 'ide-companion-warm-up' }).onNotification(methods.client.session.update, ({ params }) => {
    if (seen.push(params.update) === WARM_UP_SAMPLES.length) done();
  });
  let feed: ReadableStreamDefaultController<AnyMessage> | undefined;
  const readable = new ReadableStream<AnyMessage>({ start: (controller) => void (feed = controller) });
  const writable = new WritableStream<AnyMessage>();
  let timer: NodeJS.Timeout | undefined;
  const connection = app.connect({ readable, writable });
  try {
    for (const update of WARM_UP_SAMPLES) feed?.enqueue({ jsonrpc: '2.0', method: methods.client.session.update, params: { sessionId: 'warm-up', update } });
    await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  } catch {
    // A warm-up only: the real connection works without it.
  } finally {
    if (timer) clearTimeout(timer);
    connection.close();
  }
  return seen;
}
