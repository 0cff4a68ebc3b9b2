/**
 * The review's base from the CLI's machine (`connect --remote-files`, the
 * relay `ide-companion ssh` starts on the remote): there the agent writes its
 * own checkout, not the editor's copy, so the editor must show that file as
 * "current". The relay reads it where it runs, as the companion reads a local
 * one (by descriptor, regular files only, opened without blocking, bounded), and sends it in
 * the openDiff's `params._meta` under REMOTE_BASE_META_KEY.
 *
 * Whatever the CLI itself put under that key is taken out, with or without
 * --remote-files: the companion trusts the key from the relay's socket
 * session, so only the relay may fill it.
 */
import * as os from 'node:os';
import { PinnedFileError, readPinned } from '@ide-companion/shared/pinnedFiles';
import * as path from 'node:path';
import { REMOTE_BASE_META_KEY, type RemoteBase, OpenDiffTool } from '@ide-companion/protocol';
import type { Fields, Outline, Span } from './jsonOutline.js';
import type { RpcMessage } from './translate.js';

/** The largest remote file sent up as a base; a larger one refuses the diff (as the companion refuses a larger local one). */
export const REMOTE_BASE_MAX_BYTES = 32 * 1024 * 1024;

/** Whether `message` is a call of the openDiff tool (the only one whose base the editor shows). */
export function isOpenDiff(message: RpcMessage): boolean {
  return message.method === 'tools/call' && message.params?.['name'] === OpenDiffTool.name;
}

/** The CLI's file path of an openDiff call, when it is an absolute one (anything else the companion refuses). */
export function cliFileOf(message: RpcMessage): string | undefined {
  const args = message.params?.['arguments'];
  const filePath = args !== null && typeof args === 'object' ? (args as Record<string, unknown>)['filePath'] : undefined;
  return typeof filePath === 'string' && path.posix.isAbsolute(filePath) ? filePath : undefined;
}

/**
 * The file at `filePath` on this machine as a base: its content, null when missing, or why it cannot be one. Read
 * by descriptor (shared/pinnedFiles.ts): with `roots` (the CLI's side of the path map), only inside them by its real
 * path, and a file or folder swapped for a link while it is read is refused, never followed.
 */
export async function readBase(filePath: string, maxBytes = REMOTE_BASE_MAX_BYTES, roots?: readonly string[]): Promise<RemoteBase> {
  const where = { path: filePath, host: os.hostname() };
  try {
    const content = await readPinned(filePath, maxBytes, { roots, use: 'diff' });
    return { ...where, content: content ?? null };
  } catch (err) {
    const why = err instanceof PinnedFileError ? err.message.replace(filePath, 'it') : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
    return { ...where, content: null, error: why };
  }
}

/**
 * Whether a large message's `_meta` (its bytes at `span`) may hold the key: it names it, or holds an escape (which
 * could spell it). One that cannot is left as the CLI sent it (a progress token, say), read from its outline.
 */
export function mayHoldBaseKey(bytes: Buffer, span: Span): boolean {
  const meta = bytes.subarray(span.start, span.end);
  return meta.includes(0x5c) || meta.includes(REMOTE_BASE_META_KEY);
}

/** `message` (an openDiff call) with the CLI's own value under the key taken out, and `base` put there when given. */
export function withBase(message: RpcMessage, base: RemoteBase | undefined): RpcMessage {
  const params = message.params ?? {};
  const given = params['_meta'];
  const isObject = given !== null && typeof given === 'object' && !Array.isArray(given);
  if (!base && !(isObject && REMOTE_BASE_META_KEY in given)) return message;
  const meta: Record<string, unknown> = isObject ? { ...(given as Record<string, unknown>) } : {};
  delete meta[REMOTE_BASE_META_KEY];
  if (base) meta[REMOTE_BASE_META_KEY] = base;
  const next: Record<string, unknown> = { ...params, _meta: meta };
  if (Object.keys(meta).length === 0) delete next['_meta'];
  return { ...message, params: next };
}

/**
 * How a large openDiff's bytes get `_meta` holding a base: written at the
 * start of its params (nothing else read or copied but the bytes around it).
 * Undefined when the params have a `_meta` already (the caller parses the
 * message whole and uses withBase) or cannot be placed for certain. `shape`
 * is the outline of the bytes as the CLI sent them: a path rewritten inside
 * the params leaves their opening brace where it was.
 */
export function baseSlot(bytes: Buffer, shape: Outline): ((base: RemoteBase) => Buffer) | undefined {
  const params: Fields | undefined = shape.get('params');
  const span = shape.get('')?.get('params');
  if (!params || !span || params.has('_meta') || bytes[span.start] !== 0x7b) return undefined;
  const at = span.start + 1;
  const comma = params.size > 0 ? ',' : '';
  return (base) =>
    Buffer.concat([bytes.subarray(0, at), Buffer.from(`"_meta":${JSON.stringify({ [REMOTE_BASE_META_KEY]: base })}${comma}`), bytes.subarray(at)]);
}
