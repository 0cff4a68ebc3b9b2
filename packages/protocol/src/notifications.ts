/**
 * Every notification a companion sends, and the check that runs before each
 * is sent: one the CLI's schema rejects disconnects it (interop-notes.md).
 */
import * as z from 'zod/mini';
import { ContextUpdateNotification } from './contextUpdate.js';
import { DiffAcceptedNotification } from './diffAccepted.js';
import { DiffClosedNotification } from './diffClosed.js';
import { DiffRejectedNotification } from './diffRejected.js';

export const COMPANION_NOTIFICATIONS = [ContextUpdateNotification, DiffAcceptedNotification, DiffRejectedNotification, DiffClosedNotification] as const;

type Known = (typeof COMPANION_NOTIFICATIONS)[number];

/** `{method, params}` for each notification above, inferred from its literal method. */
export type CompanionNotification = Known extends infer T
  ? T extends { method: infer M; params: infer P extends z.ZodMiniType }
    ? { method: M; params: z.infer<P> }
    : never
  : never;

export type CompanionNotificationMethod = CompanionNotification['method'];

const byMethod = new Map<string, Known>(COMPANION_NOTIFICATIONS.map((n) => [n.method, n]));

/** Validates an outgoing notification; returns it parsed or throws an Error saying what is wrong. */
export function validateCompanionNotification(message: { method: string; params?: unknown }): CompanionNotification {
  const type = byMethod.get(message.method);
  if (!type) throw new Error(`unknown companion notification method ${JSON.stringify(message.method)}`);
  const parsed = (type.params as z.ZodMiniType).safeParse(message.params);
  if (!parsed.success) {
    throw new Error(`invalid ${message.method} params: ${z.prettifyError(parsed.error)}`);
  }
  return { method: type.method, params: parsed.data } as CompanionNotification;
}
