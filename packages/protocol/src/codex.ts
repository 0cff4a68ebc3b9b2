/**
 * Codex CLI's IDE context protocol (issue 31; read from openai/codex
 * codex-rs/tui/src/ide_context, confirmed against the CLI 0.171.0): a
 * per-user Unix socket carrying frames of a u32 little-endian length and
 * UTF-8 JSON. The socket's owner is a *router*: clients `initialize` (it
 * hands out a clientId), send requests, and the router asks the other
 * clients which one can handle each (`client-discovery-request`), forwards
 * it there, and passes the answer back. Codex CLI is a client asking
 * `ide-context {workspaceRoot}`; an editor's companion is a client answering
 * it. Here: the frames' schemas, names and the pure frame codec (no I/O).
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

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

const Position = () => z.object({ line: z.int().check(z.minimum(0)), character: z.int().check(z.minimum(0)) });
export const CodexRangeSchema = /* @__PURE__ */ lazySchema(() => z.object({ start: Position(), end: Position() }));
export type CodexRange = z.infer<typeof CodexRangeSchema>;

const descriptor = {
  label: z.string(),
  /** Relative to the workspace root asked for (absolute when outside it). */
  path: z.string(),
  fsPath: z.string(),
};
export const CodexFileDescriptorSchema = /* @__PURE__ */ lazySchema(() => z.object(descriptor));
export type CodexFileDescriptor = z.infer<typeof CodexFileDescriptorSchema>;

/** `result.ideContext` of an `ide-context` answer (ide_context.rs: activeFile optional, the rest defaulted). */
export const CodexIdeContextSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    activeFile: z.optional(
      z.object({
        ...descriptor,
        /** 0-based. */
        selection: CodexRangeSchema,
        activeSelectionContent: z.string().check(z.maxLength(CODEX_MAX_SELECTION_CHARS)),
        selections: z.array(CodexRangeSchema),
      }),
    ),
    openTabs: z.array(CodexFileDescriptorSchema),
  }),
);
export type CodexIdeContext = z.infer<typeof CodexIdeContextSchema>;

export const CodexRequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('request'),
    requestId: z.string().check(z.minLength(1), z.maxLength(200)),
    sourceClientId: z.string(),
    version: z.optional(z.number()),
    method: z.string().check(z.minLength(1), z.maxLength(200)),
    params: z.optional(z.unknown()),
  }),
);
export type CodexRequest = z.infer<typeof CodexRequestSchema>;

export const CodexResponseSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('response'),
    requestId: z.string().check(z.minLength(1), z.maxLength(200)),
    resultType: z.enum(['success', 'error']),
    method: z.optional(z.string()),
    handledByClientId: z.optional(z.string()),
    result: z.optional(z.unknown()),
    error: z.optional(z.unknown()),
  }),
);
export type CodexResponse = z.infer<typeof CodexResponseSchema>;

export const CodexDiscoveryRequestSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ type: z.literal('client-discovery-request'), requestId: z.string().check(z.minLength(1), z.maxLength(200)), request: CodexRequestSchema }),
);
export type CodexDiscoveryRequest = z.infer<typeof CodexDiscoveryRequestSchema>;

/**
 * A client's answer to discovery. `rootLength` and `activeAt` are ours (a
 * foreign router ignores them): our router prefers the companion whose root
 * is the longest match, then the one used last.
 */
export const CodexDiscoveryResponseSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('client-discovery-response'),
    requestId: z.string().check(z.minLength(1), z.maxLength(200)),
    response: z.object({ canHandle: z.boolean(), rootLength: z.optional(z.number()), activeAt: z.optional(z.number()) }),
  }),
);
export type CodexDiscoveryResponse = z.infer<typeof CodexDiscoveryResponseSchema>;

export const CodexBroadcastSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('broadcast'),
    method: z.string(),
    sourceClientId: z.optional(z.string()),
    version: z.optional(z.number()),
    params: z.optional(z.unknown()),
  }),
);
export type CodexBroadcast = z.infer<typeof CodexBroadcastSchema>;

export const CodexFrameSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('type', [CodexRequestSchema, CodexResponseSchema, CodexDiscoveryRequestSchema, CodexDiscoveryResponseSchema, CodexBroadcastSchema]),
);
export type CodexFrame = z.infer<typeof CodexFrameSchema>;

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
