/**
 * For the remote-flow tests (container, sandbox, SSH): `ide-companion serve`
 * on this machine for a fresh project, whose $EDITOR rewrites a proposal as a
 * user would, and the review of a proposal in serve's terminal.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import { makeGeminiRunDirs, repoRoot, shellCommand, Tmux, waitFor, writeFileTurns, type FakeTurn } from '@ide-companion/testkit';

export const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
export const START_TIMEOUT_MS = 120_000;
export const STEP_TIMEOUT_MS = 60_000;
export const ORIGINAL = 'original line\n';
export const PROPOSAL = 'line from the model\n';
/** What the user's $EDITOR writes in serve: CRLF, non-ASCII, no final newline. */
export const EDITED = 'the user’s line\r\nsecond 😀';

export interface ServeHost {
  dir: ReturnType<typeof makeGeminiRunDirs>;
  serve: Tmux;
  /** The project's file the model writes (a.txt), on this machine. */
  file: string;
}

/** serve for a fresh project holding a.txt, its $EDITOR writing EDITED; torn down with the test. */
export async function startServe(t: TestContext, turns: readonly FakeTurn[] = writeFileTurns('a.txt', PROPOSAL)): Promise<ServeHost> {
  const dir = makeGeminiRunDirs('ide-companion-remote-', { files: { 'a.txt': ORIGINAL }, turns });
  const serve = new Tmux(160, 50);
  t.after(async () => {
    await serve.stop();
    dir.cleanup();
  });
  const edited = path.join(dir.path, 'edited.txt');
  fs.writeFileSync(edited, EDITED);
  const editor = path.join(dir.path, 'edit.sh');
  fs.writeFileSync(editor, `#!/bin/sh\ncat '${edited}' > "$1"\n`, { mode: 0o755 });
  serve.start(shellCommand([process.execPath, BIN, 'serve', '--workspace', dir.workspace, '--no-color'], { TMPDIR: dir.tmpdir, EDITOR: editor }), {
    cwd: dir.path,
  });
  await serve.waitForText(`cd ${dir.workspace} && gemini`, STEP_TIMEOUT_MS);
  return { dir, serve, file: path.join(dir.workspace, 'a.txt') };
}

/** `ide-companion ARGS` run in the project as the user would, with the companion's TMPDIR; its stdout. */
export function ideCompanion(host: ServeHost, args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: host.dir.workspace,
    env: { ...process.env, TMPDIR: host.dir.tmpdir },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 0, `ide-companion ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The proposal reaches serve for the file on this machine; the user edits it in $EDITOR and accepts. */
export async function editAndAcceptInServe(host: ServeHost): Promise<void> {
  await host.serve.waitForText('[a]ccept', STEP_TIMEOUT_MS);
  assert.match(host.serve.screen(), new RegExp(`proposes a change to ${host.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  host.serve.type('e');
  await host.serve.waitForText('(with your edits)', STEP_TIMEOUT_MS);
  host.serve.type('a');
}

/** Waits for `read()` (a file's bytes, wherever it is) to be `expected`. */
export async function holds(what: string, read: () => string, expected: string): Promise<void> {
  let last = '';
  await waitFor(
    () => {
      last = read();
      return last === expected;
    },
    `${what} to hold ${JSON.stringify(expected)}`,
    STEP_TIMEOUT_MS,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; it holds ${JSON.stringify(last)}`);
  });
}

/** The request to the model that the CLI reported (gemini-client-error-*.json) among `files`, read by `read`. */
export function reportedRequest(files: string[], read: (name: string) => string): string | undefined {
  const report = files.find((f) => f.startsWith('gemini-client-error-') && f.endsWith('.json'));
  if (!report) return undefined;
  const message = (JSON.parse(read(report)) as { error: { message: string } }).error.message;
  const marker = 'got request:\n';
  return message.includes(marker) ? message.slice(message.indexOf(marker) + marker.length) : undefined;
}
