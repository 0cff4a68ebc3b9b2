/**
 * `getDiagnostics`: the editor's errors and warnings (language servers,
 * linters). Needs the editor's `getDiagnostics` capability. The companion
 * filters by severity and bounds the answer; the editor only lists.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { AbsolutePathSchema, RangeSchema } from './editorTypes.js';
import { toolType } from './message.js';

/** Most severe first. */
export const DIAGNOSTIC_SEVERITIES = ['error', 'warning', 'information', 'hint'] as const;
export const DiagnosticSeveritySchema = /* @__PURE__ */ lazySchema(() => z.enum(DIAGNOSTIC_SEVERITIES));
export type DiagnosticSeverity = z.infer<typeof DiagnosticSeveritySchema>;

export const DiagnosticSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    path: z.string().check(z.minLength(1)),
    range: RangeSchema,
    severity: DiagnosticSeveritySchema,
    message: z.string(),
    source: z.optional(z.string()),
    code: z.optional(z.union([z.string(), z.number()])),
  }),
);
export type Diagnostic = z.infer<typeof DiagnosticSchema>;

/** What the editor is asked: one file, or (no path) the whole workspace. */
export const GetDiagnosticsParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ path: z.optional(AbsolutePathSchema) }));
export type GetDiagnosticsParams = z.infer<typeof GetDiagnosticsParamsSchema>;
export const EditorDiagnosticsSchema = /* @__PURE__ */ lazySchema(() => z.object({ diagnostics: z.array(DiagnosticSchema) }));
export type EditorDiagnostics = z.infer<typeof EditorDiagnosticsSchema>;

export const GetDiagnosticsArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    path: z
      .optional(AbsolutePathSchema)
      .check(z.describe('Absolute path of one file; omit for the whole workspace. A file with no diagnostics, or not open: [].')),
    severity: z.optional(DiagnosticSeveritySchema).check(z.describe('Least severe level to include (default: hint, i.e. everything).')),
  }),
);
export type GetDiagnosticsArguments = z.infer<typeof GetDiagnosticsArgumentsSchema>;

export const GetDiagnosticsResultSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    diagnostics: z.array(DiagnosticSchema),
    /** Present when the answer was cut: what was left out and why. */
    truncated: z.optional(z.string()),
  }),
);
export type GetDiagnosticsResult = z.infer<typeof GetDiagnosticsResultSchema>;

/** Caps that keep an answer small enough for a model's context. */
export const MAX_DIAGNOSTICS = 500;
export const MAX_DIAGNOSTIC_MESSAGE_LENGTH = 2000;

export const GetDiagnosticsTool = toolType(
  'getDiagnostics',
  "Get the errors, warnings and hints the user's editor shows (from its language servers and linters), for one file or the whole workspace. Use it after editing code to check for problems, or to find what the user sees as broken. Returns JSON {diagnostics: [{path, range: {start, end} (1-based), severity, message, source, code}], truncated?}.",
  GetDiagnosticsArgumentsSchema,
  GetDiagnosticsResultSchema,
  { arguments: [['path']], result: [['diagnostics', '*', 'path']] },
  'getDiagnostics',
);

/** Keeps diagnostics at `severity` or worse, most severe first, cut to the caps. */
export function boundDiagnostics(all: readonly Diagnostic[], severity: DiagnosticSeverity = 'hint'): GetDiagnosticsResult {
  const rank = (s: DiagnosticSeverity) => DIAGNOSTIC_SEVERITIES.indexOf(s);
  const kept = all.filter((d) => rank(d.severity) <= rank(severity)).sort((a, b) => rank(a.severity) - rank(b.severity));
  let cutMessages = 0;
  const diagnostics = kept.slice(0, MAX_DIAGNOSTICS).map((d) => {
    if (d.message.length <= MAX_DIAGNOSTIC_MESSAGE_LENGTH) return d;
    cutMessages += 1;
    return { ...d, message: `${d.message.slice(0, MAX_DIAGNOSTIC_MESSAGE_LENGTH)}… [cut]` };
  });
  const notes: string[] = [];
  if (kept.length > MAX_DIAGNOSTICS)
    notes.push(`${kept.length - MAX_DIAGNOSTICS} of ${kept.length} diagnostics left out (at most ${MAX_DIAGNOSTICS}, most severe first)`);
  if (cutMessages > 0) notes.push(`${cutMessages} messages cut to ${MAX_DIAGNOSTIC_MESSAGE_LENGTH} characters`);
  return notes.length > 0 ? { diagnostics, truncated: notes.join('; ') } : { diagnostics };
}
