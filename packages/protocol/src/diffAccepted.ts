/** `ide/diffAccepted`: companion -> CLI, the user accepted a diff; `content` is the final text. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { notificationType } from './message.js';

export const DiffAcceptedParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    filePath: z.string().check(z.minLength(1)),
    /** The whole file as accepted, the user's edits in the diff view included. Required: the CLI drops the connection without it. */
    content: z.string(),
  }),
);
export type DiffAcceptedParams = z.infer<typeof DiffAcceptedParamsSchema>;

export const DiffAcceptedNotification = notificationType('ide/diffAccepted', 'companionToCli', DiffAcceptedParamsSchema, [['filePath']]);
