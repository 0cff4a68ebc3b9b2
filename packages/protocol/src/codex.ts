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
import { CODEX_ID_MAX_LENGTH, CODEX_MAX_SELECTION_CHARS, type CodexRequestFields } from './codexFrames.js';

export * from './codexFrames.js';

const Position = () => z.object({ line: z.int().check(z.minimum(0)), character: z.int().check(z.minimum(0)) });
export const CodexRangeSchema = /* @__PURE__ */ lazySchema(() => z.object({ start: Position(), end: Position() }));
export type CodexRange = z.infer<typeof CodexRangeSchema>;

// Built inside the lazy schemas only: a zod call at the top of the module would put zod in every bundle that takes a constant from here.
const descriptor = () => ({
  label: z.string(),
  /** Relative to the workspace root asked for (absolute when outside it). */
  path: z.string(),
  fsPath: z.string(),
});
export const CodexFileDescriptorSchema = /* @__PURE__ */ lazySchema(() => z.object(descriptor()));
export type CodexFileDescriptor = z.infer<typeof CodexFileDescriptorSchema>;

/** `result.ideContext` of an `ide-context` answer (ide_context.rs: activeFile optional, the rest defaulted). */
export const CodexIdeContextSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    activeFile: z.optional(
      z.object({
        ...descriptor(),
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
    requestId: z.string().check(z.minLength(1), z.maxLength(CODEX_ID_MAX_LENGTH)),
    sourceClientId: z.string(),
    version: z.optional(z.number()),
    method: z.string().check(z.minLength(1), z.maxLength(CODEX_ID_MAX_LENGTH)),
    params: z.optional(z.unknown()),
  }),
);
export type CodexRequest = z.infer<typeof CodexRequestSchema>;
// plainCodexRequest (codexFrames.ts) builds the same value without zod: its type must stay this one.
const _sameRequest: [CodexRequestFields, CodexRequest] extends [CodexRequest, CodexRequestFields] ? true : never = true;
void _sameRequest;

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
