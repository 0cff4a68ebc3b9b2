/** `ide/diffRejected`: companion -> CLI, the user rejected a diff. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { notificationType } from './message.js';

export const DiffRejectedParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    filePath: z.string().check(z.minLength(1)),
  }),
);
export type DiffRejectedParams = z.infer<typeof DiffRejectedParamsSchema>;

export const DiffRejectedNotification = notificationType('ide/diffRejected', 'companionToCli', DiffRejectedParamsSchema, [['filePath']]);
