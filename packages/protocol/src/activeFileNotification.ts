/**
 * `activeFileNotification`: companion -> CLI, from the architecture doc. No
 * companion we know sends it and the real CLI ignores it; clients (ours)
 * accept it from a future companion.
 */
import * as z from 'zod';
import { notificationType } from './message.js';

export const ActiveFileNotificationParamsSchema = z.object({
  filePath: z.string().optional(),
  cursor: z.object({ line: z.number(), character: z.number() }).optional(),
});

export const ActiveFileNotification = notificationType('activeFileNotification', 'companionToCli', ActiveFileNotificationParamsSchema);
