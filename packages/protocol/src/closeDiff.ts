/**
 * `closeDiff` tool: CLI -> companion. Closes the diff view without a
 * notification and answers with the proposal's current text.
 *
 * Divergence from the spec's wording ("a single TextContent block containing
 * the file's final content"): the real CLI parses that text block as JSON
 * `{"content": "..."}`. Raw text fails its parse and the user's edits are lost,
 * so the JSON form is the contract here (docs/divergences.md).
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { toolType } from './message.js';

export const CloseDiffArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    filePath: z.string().check(z.minLength(1)),
    /** Sent by the CLI; a companion never notifies on closeDiff anyway. */
    suppressNotification: z.optional(z.boolean()),
  }),
);
export type CloseDiffArguments = z.infer<typeof CloseDiffArgumentsSchema>;

/** The JSON inside closeDiff's one text block (the tool's result). `null`: no content to report. */
export const CloseDiffPayloadSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    content: z.nullable(z.string()),
  }),
);
export type CloseDiffPayload = z.infer<typeof CloseDiffPayloadSchema>;

export const CloseDiffTool = toolType(
  'closeDiff',
  'Close the diff view for a file without accepting or rejecting it. Returns JSON {"content": text} with the proposal as it stands, including any edits the user made.',
  CloseDiffArgumentsSchema,
  CloseDiffPayloadSchema,
  // The answer's `content` is the proposal's text: never a path.
  { arguments: [['filePath']], result: [] },
);

/** The text block a companion answers with. */
export function encodeCloseDiffText(content: string | null): string {
  return JSON.stringify({ content } satisfies CloseDiffPayload);
}

/** What the real CLI reads from the text block: a string, or undefined (JSON null, raw text, anything else). */
export function decodeCloseDiffText(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const parsed = CloseDiffPayloadSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.content !== null ? parsed.data.content : undefined;
  } catch {
    return undefined;
  }
}
