/**
 * What the Lua side sends the host (`vim.rpcnotify(channel, method, payload)`):
 * `hello` and `event` carry the editor vocabulary as is (docs/editor-protocol.md);
 * `diffAccept` carries the accepted proposal as buffer lines and options, turned
 * into the vocabulary's `diffAccepted` here, at the boundary, because only the
 * host can rebuild the exact bytes `:w` would write (bufferText.ts).
 */
import * as z from 'zod/mini';
import { HelloSchema, type EditorEvent, type Hello } from '@ide-companion/protocol';
import { EditorEventError, parseEditorEvent } from '@ide-companion/server';
import { BufferStateSchema, textFromBuffer } from './bufferText.js';

const DiffAcceptSchema = z.object({ id: z.string().check(z.minLength(1)), buffer: BufferStateSchema });

export type RpcMessage = { method: 'hello'; hello: Hello } | { method: 'stop' } | { method: 'event'; event: EditorEvent };

function payloadOf(args: unknown): unknown {
  return Array.isArray(args) ? args[0] : undefined;
}

function parse<T extends z.ZodMiniType>(schema: T, value: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new EditorEventError(`bad ${what} notification: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Validates one notification; throws EditorEventError with a readable reason (unknown methods included). */
export function parseRpcMessage(method: string, args: unknown): RpcMessage {
  const payload = payloadOf(args);
  switch (method) {
    case 'hello':
      return { method, hello: parse(HelloSchema, payload, 'hello') };
    case 'stop':
      return { method };
    case 'event':
      return { method, event: parseEditorEvent(payload) };
    case 'diffAccept': {
      const { id, buffer } = parse(DiffAcceptSchema, payload, 'diffAccept');
      return { method: 'event', event: { type: 'diffAccepted', diffId: id, content: textFromBuffer(buffer) } };
    }
    default:
      throw new EditorEventError(`unknown notification ${JSON.stringify(method)}`);
  }
}
