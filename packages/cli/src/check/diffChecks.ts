/**
 * Diffs: openDiff's answers, closeDiff's JSON text and silence (spec §III,
 * interop-notes Diffs), an 11 MiB proposal (interop-notes Pitfalls), and a
 * second session that must not hang the first (one McpServer per session).
 * Every diff opened here is on a file in the run's own temp dir, and closed.
 */
import { CloseDiffTool, DiffAcceptedNotification, DiffClosedNotification, DiffRejectedNotification, OpenDiffTool } from '@ide-companion/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { labelled, type CheckRun } from './checkRun.js';
import { describeCallError, httpStatusOf, sleep, timedOut, type CliLikeSession } from './cliLikeSession.js';

const OUTCOME_METHODS = new Set<string>([DiffAcceptedNotification.method, DiffRejectedNotification.method, DiffClosedNotification.method]);
/** Over the official companion's 10 MB cap. */
const LARGE_DIFF_BYTES = 11 * 1024 * 1024;

/** `diffTools`: tools/list named openDiff and closeDiff (transport.diffTools). */
export async function checkDiffs(run: CheckRun, session: CliLikeSession, diffTools: boolean): Promise<void> {
  if (!diffTools || !run.diffs) {
    for (const id of ['diff.relativePath', 'diff.open', 'diff.closeDiffJson', 'diff.closeDiffSilent', 'security.bodyLimit'] as const) {
      run.record.skip(id, diffTools ? 'no diffs opened (--no-diffs)' : 'the companion offers no diff tools');
    }
    return;
  }
  await checkRelativePath(run, session);
  const opened = await checkOpenAndClose(run, session);
  if (opened) await checkBodyLimit(run, session);
  else run.record.skip('security.bodyLimit', 'openDiff does not work (see diff.open)');
}

function textOf(result: CallToolResult): string | undefined {
  const block = result.content?.find((c) => c.type === 'text');
  return block && block.type === 'text' ? block.text : undefined;
}

async function checkRelativePath(run: CheckRun, session: CliLikeSession): Promise<void> {
  const relative = 'ide-companion-check-relative.txt';
  try {
    const result = await run.openDiff(session, relative, labelled('a relative path must be refused\n'));
    if (result.isError) {
      run.forgetDiff(relative);
      const text = textOf(result);
      if (text) run.record.pass('diff.relativePath', `isError: ${JSON.stringify(text.slice(0, 100))}`);
      else run.record.fail('diff.relativePath', 'isError without a text block saying why');
    } else {
      run.record.fail('diff.relativePath', 'a relative filePath was accepted: the diff may be for the wrong file');
    }
  } catch (err) {
    if (!timedOut(err)) run.forgetDiff(relative); // else the diff may be open: cleanup closes it
    run.record.warn('diff.relativePath', `answered a JSON-RPC error instead of isError with a text block: ${describeCallError(err)}`);
  }
}

/** diff.open, diff.closeDiffJson, diff.closeDiffSilent; true when openDiff works. */
async function checkOpenAndClose(run: CheckRun, session: CliLikeSession): Promise<boolean> {
  const file = await run.scratchFile(session, 'open');
  const proposal = labelled(`proposed content\nline 2 "quoted" \\ backslash\n`);
  const startedAt = Date.now();
  let result: CallToolResult;
  try {
    result = await run.openDiff(session, file, proposal);
  } catch (err) {
    run.record.fail('diff.open', `openDiff failed: ${describeCallError(err)}: an answer must come at once, the outcome later as a notification`);
    run.record.skip('diff.closeDiffJson', 'openDiff failed');
    run.record.skip('diff.closeDiffSilent', 'openDiff failed');
    return false;
  }
  const ms = Date.now() - startedAt;
  if (result.isError) {
    run.forgetDiff(file);
    run.record.fail('diff.open', `isError: ${textOf(result) ?? '(no text)'}`);
    run.record.skip('diff.closeDiffJson', 'openDiff failed');
    run.record.skip('diff.closeDiffSilent', 'openDiff failed');
    return false;
  }
  if (OpenDiffTool.result.safeParse(result).success) run.record.pass('diff.open', `content: [] after ${ms} ms`);
  else run.record.warn('diff.open', `answered after ${ms} ms with ${result.content?.length ?? 0} content blocks; the spec asks for content: []`);

  const closeAt = Date.now();
  try {
    const closed = await run.closeDiff(session, file);
    const text = textOf(closed);
    if (closed.isError) run.record.fail('diff.closeDiffJson', `isError: ${text ?? '(no text)'}`);
    else if (text === undefined) run.record.fail('diff.closeDiffJson', 'no text block: the CLI cannot recover the proposal');
    else judgeCloseText(run, text, proposal);
  } catch (err) {
    run.record.fail('diff.closeDiffJson', `closeDiff failed: ${describeCallError(err)}`);
  }
  await sleep(run.timeouts.quietMs);
  const outcomes = run.notificationsSince(startedAt, file).filter((n) => OUTCOME_METHODS.has(n.method));
  if (outcomes.length > 0) {
    run.record.fail(
      'diff.closeDiffSilent',
      `${outcomes.map((n) => n.method).join(', ')} arrived ${outcomes[0]!.at >= closeAt ? 'after' : 'before'} closeDiff: the CLI may settle its next diff of this file with it`,
    );
  } else {
    run.record.pass('diff.closeDiffSilent', `no diff notification within ${run.timeouts.quietMs} ms`);
  }
  return true;
}

function judgeCloseText(run: CheckRun, text: string, proposal: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (text === proposal) {
      run.record.fail('diff.closeDiffJson', 'raw text, not JSON {"content": ...}: the CLI fails to parse it and loses edits the user made in the diff view');
    } else {
      run.record.fail('diff.closeDiffJson', `text is not JSON {"content": ...}: ${JSON.stringify(text.slice(0, 60))}`);
    }
    return;
  }
  const payload = CloseDiffTool.result.safeParse(parsed);
  const content = payload.success ? payload.data.content : undefined;
  if (content === proposal) run.record.pass('diff.closeDiffJson', 'JSON {"content": ...} holding the proposal');
  else if (typeof content === 'string') run.record.warn('diff.closeDiffJson', 'JSON {"content": ...}, but not the proposal sent (edited meanwhile?)');
  else if (content === null) run.record.warn('diff.closeDiffJson', '{"content": null}: the CLI falls back to the model\'s proposal');
  else run.record.fail('diff.closeDiffJson', `JSON without a string "content": ${text.slice(0, 60)}`);
}

function largeProposal(): string {
  const line = `${'ide-companion check large proposal '.padEnd(63, '.')}\n`;
  return labelled(line.repeat(Math.ceil(LARGE_DIFF_BYTES / line.length)));
}

async function checkBodyLimit(run: CheckRun, session: CliLikeSession): Promise<void> {
  const file = await run.scratchFile(session, 'large');
  const proposal = largeProposal();
  const mib = (Buffer.byteLength(proposal) / (1024 * 1024)).toFixed(1);
  try {
    const result = await run.openDiff(session, file, proposal, run.timeouts.requestMs * 3);
    if (result.isError) {
      run.forgetDiff(file);
      run.record.fail('security.bodyLimit', `an ${mib} MiB openDiff answered isError: ${textOf(result)?.slice(0, 100) ?? '(no text)'}`);
      return;
    }
    run.record.pass('security.bodyLimit', `an ${mib} MiB openDiff was accepted`);
  } catch (err) {
    if (!timedOut(err)) run.forgetDiff(file); // else the diff may be open: cleanup closes it
    const status = httpStatusOf(err);
    run.record.fail(
      'security.bodyLimit',
      status === 413
        ? `an ${mib} MiB openDiff got HTTP 413: files that size cannot be reviewed, and the CLI gets an unhandled error`
        : `an ${mib} MiB openDiff failed: ${describeCallError(err)}`,
    );
    return;
  }
  await run.closeDiff(session, file).catch(() => undefined);
}

/** A second session connects; the first one's tool calls must still be answered. */
export async function checkSessionIsolation(run: CheckRun, first: CliLikeSession, diffTools: boolean): Promise<void> {
  let second: CliLikeSession;
  try {
    second = await run.openSession('B');
  } catch (err) {
    run.record.fail('session.isolation', `a second session could not connect: ${(err as Error).message}`);
    return;
  }
  await second.waitForStream(run.timeouts.contextMs);
  if (!diffTools || !run.diffs || run.record.status('diff.open') === 'fail') {
    try {
      await first.client.listTools(undefined, { timeout: run.timeouts.requestMs });
      run.record.pass('session.isolation', "session A's tools/list answered after session B connected");
    } catch (err) {
      run.record.fail(
        'session.isolation',
        `session A's tools/list got no answer after session B connected (${describeCallError(err)}): one McpServer shared by all sessions?`,
      );
    }
    return;
  }
  const file = await run.scratchFile(first, 'isolation');
  try {
    const result = await run.openDiff(first, file, labelled('session isolation\n'));
    if (result.isError) run.forgetDiff(file);
    run.record.pass('session.isolation', "session A's openDiff answered after session B connected");
  } catch (err) {
    // The diff stays in the run's ledger: cleanup closes it through any session that still answers.
    run.record.fail(
      'session.isolation',
      `session A's openDiff got no answer after session B connected (${describeCallError(err)}): replies go to the newest session, so a second gemini hangs the first`,
    );
    return;
  }
  await run.closeDiff(first, file).catch(() => undefined);
}
