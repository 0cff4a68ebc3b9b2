/**
 * State shared by the check groups of one run: the target, the timeouts, the
 * recorder, every notification received, the sessions opened, and the diffs
 * still open, so that cleanup closes every diff and session the run opened and
 * removes its scratch directory (the user's files are never touched). The
 * scratch directory lies in the companion's first workspace folder, hidden
 * (`.ide-companion-check-XXXXXX`): a companion shows a diff only for a file
 * inside its roots (docs/reliability.md), and check writes nothing else there.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CliLikeSession, type ReceivedNotification } from './cliLikeSession.js';
import type { Recorder } from './report.js';
import { namedFirstRoot, type Target } from './target.js';
import { CloseDiffTool, GetWorkspaceFoldersTool, OpenDiffTool } from '@ide-companion/protocol';

export interface CheckTimeouts {
  /** Any single request (tools/call, raw probes). */
  requestMs: number;
  /** How long to wait for the first ide/contextUpdate and for the GET stream. */
  contextMs: number;
  /** How long to listen for notifications that must not come. */
  quietMs: number;
  /** TCP connect attempts. */
  connectMs: number;
}

/**
 * First line of every proposal check opens: whoever sees it in their editor
 * learns where it comes from and that it goes away by itself.
 */
export const CHECK_PROPOSAL_LABEL = 'A test proposal from `ide-companion check`: it is closed automatically and nothing is written.\n';

/** A proposal's text, labelled as check's own. */
export function labelled(text: string): string {
  return CHECK_PROPOSAL_LABEL + text;
}

export const DEFAULT_TIMEOUTS: CheckTimeouts = { requestMs: 10_000, contextMs: 3_000, quietMs: 500, connectMs: 2_000 };

export class CheckRun {
  readonly notifications: ReceivedNotification[] = [];
  private readonly sessions: CliLikeSession[] = [];
  private readonly openDiffs = new Map<string, CliLikeSession>();
  private scratchDir: string | undefined;
  private cleaning: Promise<void> | undefined;
  private counter = 0;

  constructor(
    readonly target: Target,
    readonly timeouts: CheckTimeouts,
    readonly record: Recorder,
    /** False with --no-diffs: no check may open a diff. */
    readonly diffs = true,
  ) {}

  async openSession(label: string): Promise<CliLikeSession> {
    const session = await CliLikeSession.open({
      label,
      port: this.target.port,
      token: this.target.token,
      timeoutMs: this.timeouts.requestMs,
      notifications: this.notifications,
    });
    this.sessions.push(session);
    return session;
  }

  /**
   * A fresh absolute path in the run's own scratch dir, holding `original` (the diff's left side). `session`, the
   * caller's, asks for the roots when the discovery file does not name them: no session of its own, which the
   * session checks would count.
   */
  async scratchFile(session: CliLikeSession, stem: string, original = labelled('original content\n')): Promise<string> {
    this.scratchDir ??= fs.realpathSync(fs.mkdtempSync(path.join((await this.firstRoot(session)) ?? os.tmpdir(), '.ide-companion-check-')));
    const file = path.join(this.scratchDir, `${stem}-${++this.counter}.txt`);
    fs.writeFileSync(file, original);
    return file;
  }

  /** The companion's first workspace folder: from its discovery file, else as getWorkspaceFolders answers; undefined if neither says. */
  private async firstRoot(session: CliLikeSession): Promise<string | undefined> {
    const fromFile = namedFirstRoot(this.target);
    if (fromFile && fs.existsSync(fromFile)) return fromFile;
    try {
      const result = await session.callTool(GetWorkspaceFoldersTool.name, {}, this.timeouts.requestMs);
      const text = result.content?.find((c) => c.type === 'text')?.text;
      const folders = text ? (JSON.parse(text) as { folders?: unknown }).folders : undefined;
      return Array.isArray(folders) ? folders.find((f): f is string => typeof f === 'string' && path.isAbsolute(f) && fs.existsSync(f)) : undefined;
    } catch {
      return undefined;
    }
  }

  /** openDiff: remember to close it whatever happens next. */
  async openDiff(session: CliLikeSession, filePath: string, newContent: string, timeoutMs = this.timeouts.requestMs) {
    this.openDiffs.set(filePath, session);
    return session.callTool(OpenDiffTool.name, { filePath, newContent }, timeoutMs);
  }

  /** closeDiff the way the CLI sends it. */
  async closeDiff(session: CliLikeSession, filePath: string, timeoutMs = this.timeouts.requestMs) {
    const result = await session.callTool(CloseDiffTool.name, { filePath, suppressNotification: true }, timeoutMs);
    this.openDiffs.delete(filePath);
    return result;
  }

  /** The companion refused the diff: nothing to close. */
  forgetDiff(filePath: string): void {
    this.openDiffs.delete(filePath);
  }

  notificationsSince(at: number, filePath?: string): ReceivedNotification[] {
    return this.notifications.filter((n) => n.at >= at && (filePath === undefined || (n.params as { filePath?: unknown } | undefined)?.filePath === filePath));
  }

  /** Closes every diff still open, every session, and removes the scratch dir. Never throws; idempotent. */
  cleanup(): Promise<void> {
    this.cleaning ??= this.doCleanup();
    return this.cleaning;
  }

  private async doCleanup(): Promise<void> {
    // The opener may be hung (that is what some checks provoke): ask every session at once.
    const timeoutMs = Math.min(this.timeouts.requestMs, 5_000);
    for (const filePath of [...this.openDiffs.keys()]) {
      await Promise.allSettled(this.sessions.map((s) => this.closeDiff(s, filePath, timeoutMs)));
    }
    await Promise.all(this.sessions.map((s) => s.close()));
    if (this.scratchDir) fs.rmSync(this.scratchDir, { recursive: true, force: true });
  }
}
