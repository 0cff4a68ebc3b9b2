/** Shared by the client tests: real companions in private temp dirs, and a diff view the test drives. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '@ide-companion/testkit';
import { Companion, type CompanionOptions, type DiffView, type PendingDiff } from '@ide-companion/server';
import type { IdeProcess } from '../src/index.js';

/** A DiffView whose user is the test. */
export class ScriptedDiffView implements DiffView {
  shown: PendingDiff[] = [];
  closed: Array<{ diff: PendingDiff; reason: string }> = [];
  edits = new Map<string, string>();
  show(diff: PendingDiff): void {
    this.shown.push(diff);
  }
  currentText(diff: PendingDiff): string | undefined {
    return this.edits.get(diff.filePath);
  }
  close(diff: PendingDiff, reason: string): void {
    this.closed.push({ diff, reason });
  }
}

export interface Harness {
  companion: Companion;
  view: ScriptedDiffView;
  tmp: string;
  workspace: string;
  /** An IDE process that matches the companion, so discovery skips the process walk. */
  ideProcess: IdeProcess;
  /** Env with no GEMINI_CLI_* vars (the test runner's own must not leak in). */
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
}

export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GEMINI_CLI_')) env[k] = v;
  // This machine is a container: dial loopback as a dev container does.
  env['REMOTE_CONTAINERS'] = '1';
  return { ...env, ...extra };
}

export async function startCompanion(options: Partial<CompanionOptions> & { tmp?: string; workspace?: string } = {}): Promise<Harness> {
  const ownTmp = options.tmp ? undefined : makeTempDir('ide-client-test-');
  const tmp = options.tmp ?? ownTmp!.path;
  const workspace = options.workspace ?? path.join(tmp, 'ws');
  fs.mkdirSync(workspace, { recursive: true });
  const view = new ScriptedDiffView();
  const companion = new Companion({
    ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
    workspaceRoots: [workspace],
    tmpdir: tmp,
    handleSignals: false,
    diffView: view,
    ...options,
  });
  await companion.start();
  return {
    companion,
    view,
    tmp,
    workspace,
    ideProcess: { pid: options.idePid ?? process.pid, command: 'test-ide', source: 'env', chain: [] },
    env: cleanEnv(),
    cleanup: async () => {
      await companion.stop();
      ownTmp?.cleanup();
    },
  };
}

export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}
