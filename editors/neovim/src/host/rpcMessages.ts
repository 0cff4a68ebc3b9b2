/**
 * What the Lua side sends the host (`vim.rpcnotify(channel, method, payload)`):
 * `hello` and `event` carry the editor vocabulary as is (docs/editor-protocol.md);
 * `diffAccept` carries the accepted proposal as buffer lines and options, turned
 * into the vocabulary's `diffAccepted` here, at the boundary, because only the
 * host can rebuild the exact bytes `:w` would write (bufferText.ts).
 * `cursor` is the one shorthand: a cursor move in the file of the last
 * `focus`/`cursor` event, sent as positional values (`line, character,
 * anchorLine?, anchorCharacter?, selectionKind?`, no table to convert and
 * encode on every move); the host adds that path (neovimHost.ts) and
 * validates the event it makes like any other. `health` asks for the
 * :checkhealth items made now, with this Neovim's values of the terminal env.
 */
import * as z from 'zod/mini';
import { HelloSchema, type EditorEvent, type Hello } from '@ide-companion/protocol';
import { EditorEventError, parseEditorEvent } from '@ide-companion/server/editorEvents';
import { BufferStateSchema, textFromBuffer } from './bufferText.js';

const DiffAcceptSchema = z.object({ id: z.string().check(z.minLength(1)), buffer: BufferStateSchema });
const EnvSchema = z.record(z.string(), z.string());

export type RpcMessage =
  | { method: 'hello'; hello: Hello }
  | { method: 'stop' }
  | { method: 'health'; env: Record<string, string> }
  | { method: 'event'; event: EditorEvent }
  | { method: 'cursor'; cursor: { line: unknown; character: unknown }; anchor?: { line: unknown; character: unknown }; selectionKind?: unknown };

const CURSOR_ARGS = "expected line, character, and optionally the selection's anchor line and character and its kind";
/** Lua's nil in a notification's arguments (msgpack nil): the value left out. */
const absent = (value: unknown) => value === undefined || value === null;

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
    case 'health':
      return { method, env: parse(EnvSchema, payload, 'health') };
    case 'event':
      return { method, event: parseEditorEvent(payload) };
    case 'cursor': {
      // Checked as an event once the host adds the path.
      if (!Array.isArray(args) || args.length < 2 || args.length > 5) throw new EditorEventError(`bad cursor notification: ${CURSOR_ARGS}`);
      const [line, character, anchorLine, anchorCharacter, selectionKind] = args as unknown[];
      return {
        method,
        cursor: { line, character },
        ...(!absent(anchorLine) && { anchor: { line: anchorLine, character: anchorCharacter } }),
        ...(!absent(selectionKind) && { selectionKind }),
      };
    }
    case 'diffAccept': {
      const { id, buffer } = parse(DiffAcceptSchema, payload, 'diffAccept');
      return { method: 'event', event: { type: 'diffAccepted', diffId: id, content: textFromBuffer(buffer) } };
    }
    default:
      throw new EditorEventError(`unknown notification ${JSON.stringify(method)}`);
  }
}
