/**
 * Context: the first ide/contextUpdate after the GET stream opens (spec §II,
 * a MAY: warn only), and every ide/* notification of the run judged by the
 * CLI's schema (a failure disconnects the CLI) and by the spec's limits.
 */
import * as path from 'node:path';
import {
  COMPANION_NOTIFICATIONS,
  ContextUpdateNotification,
  MAX_OPEN_FILES,
  MAX_SELECTED_TEXT_LENGTH,
  validateCompanionNotification,
  type IdeContext,
} from '@ide-companion/protocol';
import type { CheckRun } from './checkRun.js';
import { sleep, type CliLikeSession } from './cliLikeSession.js';

const KNOWN_METHODS = new Set<string>(COMPANION_NOTIFICATIONS.map((n) => n.method));

export async function checkFirstContextUpdate(run: CheckRun, session: CliLikeSession): Promise<void> {
  if (session.streamOpenedAt === undefined) {
    run.record.skip('context.firstUpdate', 'no GET stream (see transport.getStream)');
    return;
  }
  const openedAt = session.streamOpenedAt;
  const deadline = openedAt + run.timeouts.contextMs;
  const first = () => run.notifications.find((n) => n.session === session.label && n.method === ContextUpdateNotification.method);
  while (!first() && Date.now() < deadline) await sleep(20);
  const update = first();
  if (update) {
    run.record.pass('context.firstUpdate', `arrived ${Math.max(0, update.at - openedAt)} ms after the GET stream opened`);
  } else {
    run.record.warn(
      'context.firstUpdate',
      `none within ${run.timeouts.contextMs} ms of the GET stream opening: the CLI never asks, so it has no context until something changes`,
    );
  }
}

/** Judges every notification received during the run. Call last. */
export function checkNotifications(run: CheckRun): void {
  const ide = run.notifications.filter((n) => KNOWN_METHODS.has(n.method));
  const invalid: string[] = [];
  const limits = new Set<string>();
  let contextUpdates = 0;
  for (const n of ide) {
    let params: unknown;
    try {
      params = validateCompanionNotification({ method: n.method, params: n.params }).params;
    } catch (err) {
      invalid.push(`session ${n.session}: ${(err as Error).message}`);
      continue;
    }
    if (n.method !== ContextUpdateNotification.method) continue;
    contextUpdates++;
    for (const problem of limitProblems(params as IdeContext)) limits.add(problem);
  }
  if (invalid.length > 0) {
    run.record.fail('context.schema', `${invalid.length} of ${ide.length} notifications fail the CLI's schema, which disconnects it: ${invalid[0]}`);
  } else if (ide.length === 0) {
    run.record.skip('context.schema', 'no ide/* notification arrived');
  } else {
    run.record.pass('context.schema', `${ide.length} notification${ide.length === 1 ? '' : 's'} valid`);
  }
  if (contextUpdates === 0) run.record.skip('context.limits', 'no valid ide/contextUpdate arrived');
  else if (limits.size > 0) run.record.warn('context.limits', [...limits].join('; '));
  else run.record.pass('context.limits', `${contextUpdates} context update${contextUpdates === 1 ? '' : 's'} within the limits`);
}

function limitProblems(context: IdeContext): string[] {
  const files = context.workspaceState?.openFiles ?? [];
  const problems: string[] = [];
  if (files.length > MAX_OPEN_FILES) problems.push(`${files.length} open files (the CLI keeps ${MAX_OPEN_FILES})`);
  const active = files.filter((f) => f.isActive).length;
  if (active > 1) problems.push(`${active} files marked active (one expected)`);
  const longest = Math.max(0, ...files.map((f) => f.selectedText?.length ?? 0));
  if (longest > MAX_SELECTED_TEXT_LENGTH) problems.push(`selectedText of ${longest} characters (the CLI cuts at ${MAX_SELECTED_TEXT_LENGTH})`);
  const relative = files.filter((f) => !path.isAbsolute(f.path));
  if (relative.length > 0) problems.push(`${relative.length} open file path${relative.length === 1 ? ' is' : 's are'} not absolute`);
  return problems;
}
