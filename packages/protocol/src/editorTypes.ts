/** Shapes shared by the editor actions and the tools built on them. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { CursorSchema } from './ideContext.js';

export const AbsolutePathSchema = /* @__PURE__ */ lazySchema(() =>
  z.string().check(
    z.minLength(1),
    z.refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\'), 'must be an absolute path'),
  ),
);

/** 1-based line and character (characters, not bytes). */
export const PositionSchema = CursorSchema;
export type Position = z.infer<typeof PositionSchema>;

export const RangeSchema = /* @__PURE__ */ lazySchema(() => z.object({ start: PositionSchema, end: PositionSchema }));
export type Range = z.infer<typeof RangeSchema>;
