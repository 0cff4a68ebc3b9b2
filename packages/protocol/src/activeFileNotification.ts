/**
 * `activeFileNotification`: companion -> CLI, from the architecture doc. No
 * companion we know sends it and the real CLI ignores it; clients (ours)
 * accept it from a future companion.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { notificationType } from './message.js';

export const ActiveFileNotificationParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    filePath: z.optional(z.string()),
    cursor: z.optional(z.object({ line: z.number(), character: z.number() })),
  }),
);

export const ActiveFileNotification = notificationType('activeFileNotification', 'companionToCli', ActiveFileNotificationParamsSchema, [['filePath']]);
