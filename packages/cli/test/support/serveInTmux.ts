/**
 * `ide-companion serve` as a user runs it beside an agent CLI: each in a tmux
 * pane of its own, in a fresh project, the agent's model a testkit mock. For
 * the tests of serve with the real Claude Code, Qwen Code, Copilot CLI and
 * opencode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import { IDE_COMPANION_BIN, makeTempDir, shellCommand, Tmux } from '@ide-companion/testkit';

export interface ServeDirs {
  /** The temp dir holding the others (and whatever else the test puts there). */
  root: string;
  /** Where serve and the agent start. */
  project: string;
  /** Serve's TMPDIR. */
  tmpdir: string;
  cleanup(): void;
}

/** A temp dir (name prefix `prefix`) with the project and serve's TMPDIR made. */
export function serveDirs(prefix: string): ServeDirs {
  const tmp = makeTempDir(prefix);
  const project = path.join(tmp.path, 'proj');
  const tmpdir = path.join(tmp.path, 'tmp');
  for (const dir of [project, tmpdir]) fs.mkdirSync(dir);
  return { root: tmp.path, project, tmpdir, cleanup: () => tmp.cleanup() };
}

/**
 * Starts serve (--no-color, TMPDIR the dirs', and `env`) in a 160×40 pane in the
 * project, and makes the agent's pane (`size`, not started); after `t` the
 * panes end, then `model`, then the dirs go. Resolves once serve shows `ready`.
 */
export async function startServe(
  t: TestContext,
  dirs: ServeDirs,
  model: { close(): Promise<void> },
  env: Record<string, string>,
  ready: string,
  size: [number, number],
): Promise<{ serve: Tmux; tui: Tmux }> {
  const serve = new Tmux(160, 40);
  const tui = new Tmux(...size);
  t.after(async () => {
    await tui.stop();
    await serve.stop();
    await model.close();
    dirs.cleanup();
  });
  serve.start(shellCommand([process.execPath, IDE_COMPANION_BIN, 'serve', '--no-color'], { TMPDIR: dirs.tmpdir, ...env }), { cwd: dirs.project });
  await serve.waitForText(ready, 60_000);
  return { serve, tui };
}
