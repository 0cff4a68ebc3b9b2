/**
 * The host-restart policy (server/hostRestarts.ts), in the host every script end runs: the bundled JSON-lines
 * host, started as an end starts it again after a death (HOST_DIED_ENV), killed as a host dies. It counts the
 * deaths of its editor (this test process, its parent), backs off, says so, and the 5th death in 3 minutes
 * gives up with HOST_GAVE_UP_EXIT_CODE; a clean stop forgets the deaths.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { test } from 'node:test';
import { CONTAINER_ENV, HOST_DIED_ENV, HOST_GAVE_UP_EXIT_CODE, HOST_KEPT_ENV } from '@ide-companion/protocol';
import { makeTempDir, repoRoot, waitFor } from '@ide-companion/testkit';

const HOST = path.join(repoRoot, 'editors', 'jsonlines', 'host', 'ide-companion-bridge.mjs');
const TIMEOUT = 20_000;

interface Run {
  host: ChildProcessWithoutNullStreams;
  lines: any[];
  exited: Promise<number | null>;
  /** ms from the spawn to each line's arrival, by type (and `backoff`: the log line that starts the wait). */
  at: Record<string, number>;
}

/** The host as Vim starts it: `hello` at once; `died` (and `kept`) as the end passes them after a death. */
function startHost(tmp: string, died?: string, kept?: string): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  for (const name of [...Object.values(CONTAINER_ENV), HOST_DIED_ENV, HOST_KEPT_ENV]) delete env[name];
  if (died !== undefined) env[HOST_DIED_ENV] = died;
  if (kept !== undefined) env[HOST_KEPT_ENV] = kept;
  const started = Date.now();
  const host = spawn(process.execPath, [HOST], { env, cwd: tmp });
  const run: Run = { host, lines: [], at: {}, exited: new Promise((resolve) => host.once('exit', (code) => resolve(code))) };
  readline.createInterface({ input: host.stdout }).on('line', (l) => {
    const m = JSON.parse(l);
    run.lines.push(m);
    run.at[m.type] ??= Date.now() - started;
  });
  // The host's log says when it starts its back-off (stderr): the wait, observed, is from there to its `say`.
  readline.createInterface({ input: host.stderr }).on('line', (l) => {
    if (l.includes('the host restarts')) run.at['backoff'] ??= Date.now() - started;
  });
  host.stdin.write(`${JSON.stringify({ type: 'hello', protocol: 1, ide: { name: 'vim', displayName: 'Vim' }, pid: process.pid, roots: [tmp] })}\n`);
  return run;
}

/** Its exit code, waited for at most TIMEOUT (a host that serves on would hold the test open). */
function exitOf(run: Run): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the host did not exit')), TIMEOUT)));
  return Promise.race([run.exited, late]).finally(() => clearTimeout(timer));
}

const lineOf = (run: Run, type: string) => waitFor(() => run.lines.find((m) => m.type === type), `the host's ${type} line`, TIMEOUT);

async function killed(run: Run): Promise<void> {
  run.host.kill('SIGKILL');
  await exitOf(run);
}

test(
  "the 5th death of an editor's host in 3 minutes gives up (exit 75, said once); deaths 1-4 restart backing off 0, 0.5, 1, 2 s; a clean stop forgets them",
  { timeout: 120_000 },
  async (t) => {
    const tmp = makeTempDir('ide-companion-host-restarts-');
    const runs: Run[] = [];
    try {
      const record = path.join(tmp.path, `ide-companion-${process.getuid!()}`, 'host-restarts', `${process.pid}.json`);
      // The editor's first host: no death, nothing said, nothing recorded.
      const first = startHost(tmp.path);
      runs.push(first);
      await lineOf(first, 'ready');
      assert.equal(
        first.lines.find((m) => m.type === 'say'),
        undefined,
        'a first start says nothing',
      );
      assert.equal(fs.existsSync(record), false);
      await killed(first);

      // Deaths 1 to 4: each new host says it was restarted, after its back-off, and serves.
      const backoff = [0, 500, 1000, 2000];
      const waited: number[] = [];
      for (let death = 1; death <= 4; death++) {
        const run = startHost(tmp.path, death === 1 ? '-9' : '137', death === 1 ? JSON.stringify(['a.txt', 'b.txt']) : '[]');
        runs.push(run);
        const said = await lineOf(run, 'say');
        await lineOf(run, 'ready');
        await waitFor(() => run.at['backoff'] !== undefined, 'the back-off logged', TIMEOUT);
        waited.push(run.at['say']! - run.at['backoff']!);
        assert.equal(said.level, 'warning');
        assert.equal(
          said.message,
          death === 1
            ? 'the companion host stopped (exit code -9) and was restarted; your proposal for a.txt, b.txt is kept in its tab (:w FILE saves it)'
            : 'the companion host stopped (exit code 137) and was restarted',
        );
        assert.ok(run.at['say']! <= run.at['ready']!, 'said before it serves');
        assert.equal(JSON.parse(fs.readFileSync(record, 'utf8')).deaths.length, death, `death ${death} recorded`);
        await killed(run);
      }
      t.diagnostic(`back-off observed for deaths 1-4: ${waited.join(', ')} ms`);
      // Each waits its back-off, not the next one's (a count one off waits twice as long, or half).
      for (let i = 0; i < 4; i++) {
        assert.ok(waited[i]! >= backoff[i]! - 20 && waited[i]! < backoff[i]! + 250, `death ${i + 1} waited ${waited[i]} ms, expected ${backoff[i]}`);
      }
      const st = fs.statSync(record);
      assert.equal(st.mode & 0o777, 0o600, 'the record is private');
      assert.equal(fs.statSync(path.dirname(record)).mode & 0o777, 0o700);

      // Death 5: said once, as an error, and the host exits 75 without serving.
      const fifth = startHost(tmp.path, 'SIGKILL', JSON.stringify(['a.txt']));
      runs.push(fifth);
      assert.equal(await exitOf(fifth), HOST_GAVE_UP_EXIT_CODE, 'the give-up exit code');
      assert.deepEqual(
        fifth.lines.map((m) => m.type),
        ['say'],
        'one line, no ready',
      );
      assert.deepEqual(fifth.lines[0], {
        type: 'say',
        level: 'error',
        message:
          'the companion host stopped 5 times in 3 minutes (killed by SIGKILL); it is not restarted; your proposal for a.txt is kept in its tab (:w FILE saves it). :GeminiStart tries again, :GeminiHealth tells why',
      });
      assert.deepEqual(
        fs.readdirSync(path.join(tmp.path, 'gemini', 'ide')).filter((n) => n.startsWith(`gemini-ide-server-${process.pid}-`)),
        [],
        'no discovery file left',
      );

      // The user starts it again (no death): it serves; stopped cleanly (its input closed), it forgets the deaths.
      const user = startHost(tmp.path);
      runs.push(user);
      await lineOf(user, 'ready');
      user.host.stdin.end();
      assert.equal(await exitOf(user), 0);
      assert.equal(fs.existsSync(record), false, 'a clean stop removes the record');

      // The next death is the 1st again: restarted at once. What an end passes is checked: nothing else reaches the words.
      const again = startHost(tmp.path, '9; rm -rf ~', '{"files":["x"]}');
      runs.push(again);
      const said = await lineOf(again, 'say');
      await lineOf(again, 'ready');
      assert.deepEqual(said, { type: 'say', level: 'warning', message: 'the companion host stopped and was restarted' });
      await waitFor(() => again.at['backoff'] !== undefined, 'the back-off logged', TIMEOUT);
      assert.ok(again.at['say']! - again.at['backoff']! < 250, `no back-off after a reset (${again.at['say']! - again.at['backoff']!} ms)`);
      assert.deepEqual(JSON.parse(fs.readFileSync(record, 'utf8')).deaths.length, 1);
      again.host.stdin.end();
      assert.equal(await exitOf(again), 0);
    } finally {
      for (const run of runs) if (run.host.exitCode === null && run.host.signalCode === null) await killed(run);
      tmp.cleanup();
    }
  },
);
