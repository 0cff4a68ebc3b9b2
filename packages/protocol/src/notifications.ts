/**
 * Every notification a companion sends, and the check that runs before each
 * is sent: one the CLI's schema rejects disconnects it (interop-notes.md).
 */
import { z } from 'zod';
import { ContextUpdateNotification } from './contextUpdate.js';
import { DiffAcceptedNotification } from './diffAccepted.js';
import { DiffClosedNotification } from './diffClosed.js';
import { DiffRejectedNotification } from './diffRejected.js';
import type { NotificationType } from './message.js';

export const COMPANION_NOTIFICATIONS = [
  ContextUpdateNotification,
  DiffAcceptedNotification,
  DiffRejectedNotification,
  DiffClosedNotification,
] as const;

export type CompanionNotification =
  | { method: 'ide/contextUpdate'; params: z.infer<typeof ContextUpdateNotification.params> }
  | { method: 'ide/diffAccepted'; params: z.infer<typeof DiffAcceptedNotification.params> }
  | { method: 'ide/diffRejected'; params: z.infer<typeof DiffRejectedNotification.params> }
  | { method: 'ide/diffClosed'; params: z.infer<typeof DiffClosedNotification.params> };

const byMethod = new Map<string, NotificationType<z.ZodType>>(COMPANION_NOTIFICATIONS.map((n) => [n.method, n]));

/** Validates an outgoing notification; returns it parsed or throws an Error saying what is wrong. */
export function validateCompanionNotification(message: { method: string; params?: unknown }): CompanionNotification {
  const type = byMethod.get(message.method);
  if (!type) throw new Error(`unknown companion notification method ${JSON.stringify(message.method)}`);
  const parsed = type.params.safeParse(message.params);
  if (!parsed.success) {
    throw new Error(`invalid ${message.method} params: ${z.prettifyError(parsed.error)}`);
  }
  return { method: message.method, params: parsed.data } as CompanionNotification;
}
