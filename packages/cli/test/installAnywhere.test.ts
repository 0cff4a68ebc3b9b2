/**
 * The README's way to use `serve` in one's own project: a global install from
 * the clone puts `ide-companion` on the PATH, and `npm start` serves the folder
 * npm was started from. Regression: `npm start` always served the repository
 * root, and the README's `npx ide-companion serve` failed outside the clone.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { test } from 'node:test';
import { makeTempDir, repoRoot, skipUnless, waitFor, which } from '@ide-companion/testkit';

const skip = skipUnless(which('npm') !== undefined, 'npm', 'install Node.js with npm');

/** The discovery file `serve` wrote under `tmp` (its TMPDIR). */
function discovery(tmp: string): { workspacePath: string } | undefined {
  const dir = path.join(tmp, 'gemini', 'ide');
  const name = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.startsWith('gemini-ide-server-')) : undefined;
  return name ? JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) : undefined;
}

/** Ends a child started with `detached: true` and everything it started (npm runs the script through sh). */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  await exited;
}

test('npm start serves the folder npm was started from, not the repository', { skip }, async () => {
  const tmp = makeTempDir();
  const project = path.join(tmp.path, 'their project');
  fs.mkdirSync(project);
  const child = spawn('npm', ['--prefix', repoRoot, 'start'], {
    cwd: project,
    env: { ...process.env, TMPDIR: tmp.path, INIT_CWD: '' },
    stdio: 'ignore',
    detached: true,
  });
  try {
    const d = await waitFor(() => discovery(tmp.path), 'the discovery file of npm start', 30_000);
    assert.equal(d.workspacePath, project);
  } finally {
    await stopGroup(child);
    tmp.cleanup();
  }
});

test('a global install from the clone (offline) puts ide-companion on the PATH; serve there serves the current folder', { skip }, async () => {
  const tmp = makeTempDir();
  const prefix = path.join(tmp.path, 'prefix');
  const project = path.join(tmp.path, 'project');
  fs.mkdirSync(project);
  // The README's command, with a private prefix; --offline proves nothing is fetched.
  execFileSync('npm', ['install', '-g', '--ignore-scripts', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, '.'], {
    cwd: repoRoot,
    stdio: 'pipe',
  });
  const PATH = [path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
  const child = spawn('ide-companion', ['serve', '--json'], { cwd: project, env: { ...process.env, PATH, TMPDIR: tmp.path }, detached: true });
  const events: Array<Record<string, any>> = [];
  readline.createInterface({ input: child.stdout! }).on('line', (l) => events.push(JSON.parse(l)));
  try {
    const listening = await waitFor(() => events.find((e) => e.event === 'listening'), 'serve listening', 20_000);
    assert.deepEqual(listening['workspace'], [project]);
    assert.equal(discovery(tmp.path)?.workspacePath, project);
  } finally {
    await stopGroup(child);
    tmp.cleanup();
  }
});
