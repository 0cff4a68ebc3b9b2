/**
 * `ide/diffClosed`: legacy companion -> CLI notification, taken by the CLI as a
 * rejection. Companions should send `ide/diffRejected`; clients accept both.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { notificationType } from './message.js';

export const DiffClosedParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    filePath: z.string().check(z.minLength(1)),
    content: z.optional(z.string()),
  }),
);
export type DiffClosedParams = z.infer<typeof DiffClosedParamsSchema>;

export const DiffClosedNotification = notificationType('ide/diffClosed', 'companionToCli', DiffClosedParamsSchema, [['filePath']]);
