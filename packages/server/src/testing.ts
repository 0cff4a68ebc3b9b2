/**
 * For tests of anything built on the companion (this package's, the client's,
 * the CLI's, editor ends, benchmarks): a started Companion in a private temp
 * dir, and a DiffView whose user is the test. A separate entry point,
 * `@ide-companion/server/testing`, so editors never load it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Companion, type CompanionOptions } from './companion.js';
import type { ActionParams } from '@ide-companion/protocol';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { DiffCloseReason, EditorActions, PendingDiff } from './editorActions.js';

/** An editor's diff actions that record what the companion asks; the test plays the user. */
export class RecordingEditor implements EditorActions {
  shown: PendingDiff[] = [];
  closed: Array<{ diff: PendingDiff; reason: DiffCloseReason; message?: string | undefined }> = [];
  /** The user's edits in the view, keyed by diff id or by file path. */
  edits = new Map<string, string>();
  /** When set, show() fails with this message. */
  failWith: string | undefined;
  /** An editor that never finishes showing: openDiff stays unanswered. */
  hang = false;

  /** The words each showDiff came with, in the order of `shown`. */
  shownWords: Array<ActionParams<'showDiff'>['words']> = [];

  showDiff(diff: PendingDiff, words?: ActionParams<'showDiff'>['words']): void | Promise<void> {
    if (this.failWith) throw new Error(this.failWith);
    this.shown.push(diff);
    this.shownWords.push(words);
    if (this.hang) return new Promise<void>(() => undefined);
  }
  diffText(diff: PendingDiff): string | undefined {
    return this.edits.get(diff.id) ?? this.edits.get(diff.filePath);
  }
  closeDiff(diff: PendingDiff, reason: DiffCloseReason, message?: string): void {
    this.closed.push({ diff, reason, message });
  }
  /** The `reload` actions asked, oldest first. */
  reloads: Array<ActionParams<'reload'>> = [];
  reload(params: ActionParams<'reload'>): void {
    this.reloads.push(params);
  }
}

export interface TestCompanion {
  companion: Companion;
  /** The recording editor in use unless the options named another editor (or none). */
  view: RecordingEditor;
  /** The companion's tmpdir: its discovery file is in `tmp/gemini/ide`. */
  tmp: string;
  workspace: string;
  cleanup: () => Promise<void>;
}

export interface TestCompanionOptions extends Partial<CompanionOptions> {
  /** An existing dir to use as tmpdir (not removed by cleanup). */
  tmp?: string;
  /** The workspace root; default `tmp/ws`. */
  workspace?: string;
  /** Start it (default true). */
  start?: boolean;
}

/** Every face's discovery in the test's folder, never the user's ~/.qwen or ~/.claude. */
function defaultFacePaths(tmp: string): Partial<Record<AgentName, string>> {
  return {
    qwen: path.join(tmp, 'qwen', 'ide'),
    claude: path.join(tmp, 'claude', 'ide'),
    copilot: path.join(tmp, 'copilot', 'ide'),
    codex: path.join(tmp, 'codex', 'ipc', 'ipc.sock'),
    amp: path.join(tmp, 'amp', 'ide'),
    droid: path.join(tmp, '.factory', 'ide'),
  };
}

/**
 * A Companion named "Test IDE" for `tmp/ws`, not handling signals, with a
 * RecordingEditor unless `editor` is given (`editor: undefined`: none).
 */
export async function startTestCompanion(options: TestCompanionOptions = {}): Promise<TestCompanion> {
  const { tmp: givenTmp, workspace: givenWorkspace, start = true, ...companionOptions } = options;
  const tmp = givenTmp ?? fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-test-')));
  const workspace = givenWorkspace ?? path.join(tmp, 'ws');
  fs.mkdirSync(workspace, { recursive: true });
  const view = new RecordingEditor();
  const companion = new Companion({
    ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
    workspaceRoots: [workspace],
    tmpdir: tmp,
    handleSignals: false,
    editor: view,
    // The other agents' lock files in the test's folder, never the user's ~/.qwen or ~/.claude.
    facePaths: defaultFacePaths(tmp),
    ...companionOptions,
    // A test's own paths join these, never open the user's folders.
    ...(companionOptions.facePaths && { facePaths: { ...defaultFacePaths(tmp), ...companionOptions.facePaths } }),
  });
  if (start) await companion.start();
  return {
    companion,
    view,
    tmp,
    workspace,
    cleanup: async () => {
      await companion.stop();
      if (!givenTmp) fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
