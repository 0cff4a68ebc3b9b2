/**
 * Codex CLI's IPC frames without zod: the names and limits, the socket's
 * place and the pure frame codec. Apart from codex.ts (the schemas) so that a
 * command that only dials the socket (doctor, list) loads no zod.
 */
export const CODEX_ENV = {
  /** Where Codex CLI keeps its state (default ~/.codex); the socket is in its `ipc` folder. */
  HOME: 'CODEX_HOME',
} as const;

/**
 * Where 0.171.0 looks, in order (strace of `/ide`), stopping at the first it
 * connects to: `$CODEX_HOME/ipc/ipc.sock`, then the legacy
 * `$TMPDIR/codex-ipc/ipc-UID.sock` (for root `ipc.sock`, then `ipc-0.sock`).
 */
export const CODEX_IPC = { dir: 'ipc', socket: 'ipc.sock', legacyDir: 'codex-ipc' } as const;

export const CODEX_METHOD = { initialize: 'initialize', ideContext: 'ide-context', clientStatusChanged: 'client-status-changed' } as const;

/** The error strings the CLI knows: it says "Open this project in VS Code..." for the first, retries after a toggle for both. */
export const CODEX_ERROR = {
  noClientFound: 'no-client-found',
  clientDisconnected: 'client-disconnected',
  timeout: 'request-timeout',
  invalidRequest: 'invalid-request',
} as const;

/** The CLI refuses a frame above 256 MiB; ours are far smaller (CODEX_MAX_*). */
export const CODEX_CLI_MAX_FRAME_BYTES = 256 * 1024 * 1024;
/** Frames from a client that is not answering a request for us: requests, discovery answers, broadcasts. */
export const CODEX_MAX_CLIENT_FRAME_BYTES = 1024 * 1024;
/** Frames from a client answering a request the router forwarded to it (an ide-context answer). */
export const CODEX_MAX_RESPONSE_FRAME_BYTES = 16 * 1024 * 1024;
/** The CLI cuts the selection at this many characters in the prompt (prompt.rs); we send no more. */
export const CODEX_MAX_SELECTION_CHARS = 200_000;
/** How long the CLI waits for its whole exchange (ipc.rs): answers must come well within it. */
export const CODEX_CLI_TIMEOUT_MS = 6_000;

/** A frame's bytes: the u32 little-endian length, then the JSON. */
export function encodeCodexFrame(message: unknown): Uint8Array {
  const text = JSON.stringify(message);
  // One allocation: UTF-8 takes at most 3 bytes per UTF-16 unit.
  const frame = new Uint8Array(4 + text.length * 3);
  const { written } = utf8Encoder.encodeInto(text, frame.subarray(4));
  new DataView(frame.buffer).setUint32(0, written, true);
  return frame.subarray(0, 4 + written);
}

const utf8Encoder = new TextEncoder();

/** The bounds of a frame's requestId and a request's method (codex.ts's schemas take them from here). */
export const CODEX_ID_MAX_LENGTH = 200;

/**
 * A plain request frame as CodexRequestSchema reads it, without zod: the
 * frame Codex CLI sends for each `/ide`, read cold on every one (zod's parse
 * was a third of the router's part). Only ever accepts: anything that is not
 * plainly such a request (another type, a field of the wrong kind, a bound
 * crossed) gives undefined, and the caller asks the schema, whose word holds.
 * Returns the fields the schema keeps, the others dropped as it drops them.
 */
export function plainCodexRequest(value: unknown): CodexRequestFields | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const { requestId, sourceClientId, version, method } = v;
  if (v['type'] !== 'request' || typeof sourceClientId !== 'string') return undefined;
  if (typeof requestId !== 'string' || requestId.length < 1 || requestId.length > CODEX_ID_MAX_LENGTH) return undefined;
  if (typeof method !== 'string' || method.length < 1 || method.length > CODEX_ID_MAX_LENGTH) return undefined;
  if (version !== undefined && (typeof version !== 'number' || !Number.isFinite(version))) return undefined;
  // In the schema's order, as its parse builds the value (a forwarded request is written out in that order).
  return {
    type: 'request',
    requestId,
    sourceClientId,
    ...(version !== undefined && { version }),
    method,
    ...('params' in v && { params: v['params'] }),
  };
}

/** The fields of a request frame: codex.ts's CodexRequest, which its schema infers. */
export interface CodexRequestFields {
  type: 'request';
  requestId: string;
  sourceClientId: string;
  version?: number | undefined;
  method: string;
  params?: unknown;
}

/** Why a byte stream is not frames: the connection that sent it is closed. */
export class CodexFrameError extends Error {}

/**
 * Splits a byte stream into frames' JSON values. The cap is asked as each
 * frame's length is read (a client answering a request for us may send more);
 * a length over it, a payload that is not UTF-8 JSON, throws CodexFrameError.
 */
export class CodexFrameDecoder {
  private buffered: Uint8Array = new Uint8Array(0);
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxFrameBytes: () => number) {}

  /** Bytes waiting for the rest of their frame. */
  get pending(): number {
    return this.buffered.length;
  }

  push(chunk: Uint8Array): unknown[] {
    this.buffered = this.buffered.length === 0 ? chunk : concat(this.buffered, chunk);
    const messages: unknown[] = [];
    while (this.buffered.length >= 4) {
      const view = new DataView(this.buffered.buffer, this.buffered.byteOffset, 4);
      const length = view.getUint32(0, true);
      const max = this.maxFrameBytes();
      if (length > max) throw new CodexFrameError(`a frame of ${length} bytes is over the limit of ${max}`);
      if (this.buffered.length < 4 + length) break;
      const payload = this.buffered.subarray(4, 4 + length);
      this.buffered = this.buffered.subarray(4 + length);
      let text: string;
      try {
        text = this.utf8.decode(payload);
      } catch {
        throw new CodexFrameError('a frame is not UTF-8');
      }
      try {
        messages.push(JSON.parse(text));
      } catch {
        throw new CodexFrameError('a frame is not JSON');
      }
    }
    return messages;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
