/**
 * The scripts `ide-companion ssh` sends the remote, run here by sh: the setup
 * writes each file byte for byte, with the remote folder where the
 * placeholder stands, whatever the remote's TMPDIR holds (`#`, `&`, spaces;
 * the sed it used before broke on `#` and differs on BSD), and refuses a
 * folder a JSON string could not hold; the enter script writes the
 * discovery file only into folders of the user's alone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import { makeTempDir, Tmux, waitFor } from '@ide-companion/testkit';
import { enterScript, REMOTE_DIR_PLACEHOLDER, setupScript } from '../src/commands/ssh.js';
import type { RemotePlan } from '../src/remote/remotePlan.js';
import { shellQuote } from '../src/remote/shellWords.js';

function runSetup(tmpdir: string, files: Record<string, string>) {
  return spawnSync('sh', ['-s'], { input: setupScript(files), encoding: 'utf8', env: { PATH: process.env['PATH'], TMPDIR: tmpdir } });
}

test('setup writes the files, the remote folder in place of the placeholder, under a TMPDIR with # & and spaces', (t) => {
  const tmp = makeTempDir('ide-companion-ssh-script-');
  t.after(() => tmp.cleanup());
  const tmpdir = path.join(tmp.path, 'odd # dir & more');
  fs.mkdirSync(tmpdir);
  const discovery = `${JSON.stringify({ relay: `${REMOTE_DIR_PLACEHOLDER}/ide-companion-connect.mjs`, socketPath: `${REMOTE_DIR_PLACEHOLDER}/mcp.sock` })}\n`;
  const r = runSetup(tmpdir, { 'discovery.json': discovery, token: 'secret-token\n', 'relay.mjs': 'console.log(\'$HOME `x` \\\\ "q"\');\n' });
  assert.equal(r.status, 0, r.stderr);
  const dir = r.stdout.trim();
  assert.ok(dir.startsWith(`${tmpdir}/ide-companion-ssh.`), dir);
  assert.equal((fs.statSync(dir).mode & 0o777).toString(8), '700');
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'discovery.json'), 'utf8')), {
    relay: `${dir}/ide-companion-connect.mjs`,
    socketPath: `${dir}/mcp.sock`,
  });
  assert.equal(fs.readFileSync(path.join(dir, 'token'), 'utf8'), 'secret-token\n');
  assert.equal(fs.readFileSync(path.join(dir, 'relay.mjs'), 'utf8'), 'console.log(\'$HOME `x` \\\\ "q"\');\n');
  assert.equal((fs.statSync(path.join(dir, 'token')).mode & 0o777).toString(8), '600');
});

test('setup refuses a remote folder with a quote in its path, and leaves nothing behind', (t) => {
  const tmp = makeTempDir('ide-companion-ssh-script-');
  t.after(() => tmp.cleanup());
  const tmpdir = path.join(tmp.path, 'has"quote');
  fs.mkdirSync(tmpdir);
  const r = runSetup(tmpdir, { 'discovery.json': `{"relay":"${REMOTE_DIR_PLACEHOLDER}/x"}\n` });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /has a quote or a backslash in its path; set TMPDIR elsewhere/);
  assert.deepEqual(fs.readdirSync(tmpdir), []);
});

/*
 * The enter script on a shared remote (issue 27): another user who made
 * `$TMPDIR/gemini/ide` first (0777) and planted a link named like our
 * discovery file made our `cp` overwrite the link's target, a file of the
 * user's. Now each folder is made 0700 or verified (real, ours, writable by
 * no one else) and the file goes in under a fresh name, then renamed. Run as
 * root, the script runs as `nobody` in folders root made: a second user for
 * real; otherwise the 0777 folders are this user's own, which the script
 * refuses alike.
 */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const PLAN: RemotePlan = {
  socketPath: '/here/mcp.sock',
  socketDir: '/here',
  served: true,
  hostRoot: '/here/project',
  relative: '',
  ideInfo: { name: 'neovim', displayName: 'Neovim' },
  relay: '/here/connect.mjs',
};
const DISCOVERY = '{"workspacePath":"/here/project"}\n';

interface Remote {
  tmpdir: string;
  home: string;
  secret: string;
  /** Where the user's shell (the test's) copies what it found. */
  seen: string;
}

/** A remote: TMPDIR like /tmp (1777), the user's home holding a precious file, the private folder with the discovery file. */
function remote(t: TestContext): Remote {
  const tmp = makeTempDir('ide-companion-ssh-enter-');
  t.after(() => tmp.cleanup());
  fs.chmodSync(tmp.path, 0o755);
  const tmpdir = path.join(tmp.path, 'tmp');
  fs.mkdirSync(tmpdir);
  fs.chmodSync(tmpdir, 0o1777);
  const home = path.join(tmp.path, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  const secret = path.join(home, 'secret.txt');
  fs.writeFileSync(secret, 'precious\n');
  const d = path.join(home, 'd');
  fs.mkdirSync(d, { mode: 0o700 });
  fs.writeFileSync(path.join(d, 'discovery.json'), DISCOVERY);
  fs.writeFileSync(path.join(d, 'enter.sh'), enterScript(PLAN, home));
  // The user's login shell: says what gemini would find, and how its folder looks.
  fs.writeFileSync(
    path.join(home, 'shell.sh'),
    '#!/bin/sh\nf="$TMPDIR/gemini/ide/gemini-ide-server-$GEMINI_CLI_IDE_PID-1.json"\n{ cat "$f"; ls -ldn "$f" "$TMPDIR/gemini" "$TMPDIR/gemini/ide"; } > "$HOME/seen" 2>&1\nexit 0\n',
    { mode: 0o755 },
  );
  if (asRoot)
    for (const p of [home, secret, d, path.join(d, 'discovery.json'), path.join(d, 'enter.sh'), path.join(home, 'shell.sh')]) fs.chownSync(p, NOBODY, NOBODY);
  return { tmpdir, home, secret, seen: path.join(home, 'seen') };
}

// The enter script echoed the editor's name as its discovery file gave it: OSC 52 in it reached the remote terminal.
test("enter: the editor's name it says is without control characters", () => {
  const script = enterScript({ ...PLAN, ideInfo: { name: 'neovim', displayName: 'Neo\x1b]52;c;aGk\x07vim\x9b2J' } }, '/home/u');
  assert.match(script, /gemini here reaches Neo\]52;c;aGkvim2J on the other end/);
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  assert.doesNotMatch(script, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
});

/** Runs the enter script as the remote user; `plant` runs just before in the same process (its PID names the file). */
function runEnter(r: Remote, plant = '') {
  return spawnSync('sh', ['-c', `${plant}\nexec sh "$IDE_COMPANION_DIR/enter.sh"`], {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: process.env['PATH'], TMPDIR: r.tmpdir, HOME: r.home, SHELL: path.join(r.home, 'shell.sh'), IDE_COMPANION_DIR: path.join(r.home, 'd') },
    ...(asRoot && { uid: NOBODY, gid: NOBODY }),
  });
}

/** The cleanup runs within a second of the shell's end (a watcher polls its PID): `check` holds within 5 s. */
async function cleanedUp(check: () => void): Promise<void> {
  await waitFor(
    () => {
      check();
      return true;
    },
    'the cleanup',
    5_000,
    50,
  );
  check();
}

test('enter: a gemini/ide folder another user made 0777, with a link named like our file: refused and said, the link target unchanged, the shell still runs', (t) => {
  const r = remote(t);
  const ide = path.join(r.tmpdir, 'gemini', 'ide');
  fs.mkdirSync(ide, { recursive: true });
  for (const dir of [path.dirname(ide), ide]) fs.chmodSync(dir, 0o777);
  const run = runEnter(r, `ln -s ${shellQuote(r.secret)} "$TMPDIR/gemini/ide/gemini-ide-server-$$-1.json"`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /gemini is writable by other users, so no discovery file goes there: gemini here will not find the editor/);
  assert.equal(fs.readFileSync(r.secret, 'utf8'), 'precious\n');
  assert.ok(fs.existsSync(r.seen), 'the shell ran');
});

test('enter: gemini/ide a link to a folder of the user: refused, nothing written there', (t) => {
  const r = remote(t);
  fs.mkdirSync(path.join(r.tmpdir, 'gemini'), { mode: 0o700 });
  if (asRoot) fs.chownSync(path.join(r.tmpdir, 'gemini'), NOBODY, NOBODY);
  fs.symlinkSync(r.home, path.join(r.tmpdir, 'gemini', 'ide'));
  const run = runEnter(r);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /gemini\/ide is a symbolic link, so no discovery file goes there/);
  assert.deepEqual(
    fs.readdirSync(r.home).filter((n) => n.startsWith('gemini-ide-server')),
    [],
  );
});

test('enter: a link planted at the final name in our own folder is replaced, not followed', async (t) => {
  const r = remote(t);
  const ide = path.join(r.tmpdir, 'gemini', 'ide');
  fs.mkdirSync(ide, { recursive: true, mode: 0o700 });
  if (asRoot) for (const dir of [path.dirname(ide), ide]) fs.chownSync(dir, NOBODY, NOBODY);
  const run = runEnter(r, `ln -s ${shellQuote(r.secret)} "$TMPDIR/gemini/ide/gemini-ide-server-$$-1.json"`);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(fs.readFileSync(r.secret, 'utf8'), 'precious\n');
  assert.ok(fs.readFileSync(r.seen, 'utf8').startsWith(DISCOVERY), fs.readFileSync(r.seen, 'utf8'));
  // Folders it found stay; its file goes (within a second of the shell's end).
  await cleanedUp(() => assert.deepEqual(fs.readdirSync(ide), []));
});

test("enter: our files of earlier sessions whose shell is gone are swept; a live session's and a companion's stay", async (t) => {
  const r = remote(t);
  const ide = path.join(r.tmpdir, 'gemini', 'ide');
  fs.mkdirSync(ide, { recursive: true, mode: 0o700 });
  // A PID gone, and one alive as the remote user (another session's shell).
  const dead = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
  const live = spawn('sleep', ['30'], { stdio: 'ignore', ...(asRoot && { uid: NOBODY, gid: NOBODY }) });
  t.after(() => live.kill('SIGKILL'));
  const names = {
    deadOurs: `gemini-ide-server-${dead}-1.json`,
    liveOurs: `gemini-ide-server-${live.pid}-1.json`,
    companion: `gemini-ide-server-${dead}-4242.json`,
  };
  for (const name of Object.values(names)) fs.writeFileSync(path.join(ide, name), DISCOVERY);
  if (asRoot) for (const p of [path.dirname(ide), ide, ...Object.values(names).map((n) => path.join(ide, n))]) fs.chownSync(p, NOBODY, NOBODY);
  const run = runEnter(r);
  assert.equal(run.status, 0, run.stderr);
  const left = fs.readFileSync(r.seen, 'utf8');
  assert.ok(left.startsWith(DISCOVERY), left);
  await cleanedUp(() => assert.deepEqual(fs.readdirSync(ide).sort(), [names.companion, names.liveOurs].sort()));
});

test('enter: a fresh TMPDIR: folders made 0700, the file 0600 while the shell runs, and all of it gone after', async (t) => {
  const r = remote(t);
  const run = runEnter(r);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  const seen = fs.readFileSync(r.seen, 'utf8').split('\n');
  assert.equal(seen[0] + '\n', DISCOVERY);
  // ls sorts its arguments: gemini, gemini/ide, then the file.
  assert.match(seen[1]!, /^drwx------ /);
  assert.match(seen[2]!, /^drwx------ /);
  assert.match(seen[3]!, /^-rw------- /);
  await cleanedUp(() => {
    assert.deepEqual(fs.readdirSync(r.tmpdir), []);
    assert.equal(fs.existsSync(path.join(r.home, 'd')), false);
  });
});

/*
 * The connection dropped under a running gemini (docs/reliability.md: after an SSH cut the
 * discovery file stayed while gemini lived on). sh runs a trap only once its
 * foreground child ends, and the enter script waited on the login shell,
 * which waited on gemini, which nothing had hung up: the kernel signals only
 * the session leader, the script. Now the login shell leads the session: a
 * hang-up ends it and reaches its jobs, and the cleanup waits for no child.
 * Here the terminal is tmux's, hung up by killing its server; the shell has a
 * job that a hang-up ends and, in the foreground, one deaf to it (gemini's
 * relaunching parent ignores SIGHUP).
 */
test('enter: the terminal hung up under a child that ignores SIGHUP: the shell and its jobs hung up, our files gone while that child runs on', async (t) => {
  const r = remote(t);
  const jobPid = path.join(r.home, 'job.pid');
  const deafPid = path.join(r.home, 'deaf.pid');
  fs.writeFileSync(
    path.join(r.home, 'shell.sh'),
    ['#!/bin/sh', 'sleep 300 & echo $! > "$HOME/job.pid"', 'sh -c \'trap "" HUP; echo $$ > "$HOME/deaf.pid"; while :; do sleep 1; done\'', ''].join('\n'),
    { mode: 0o755 },
  );
  const pidIn = (file: string) => Number(fs.readFileSync(file, 'utf8').trim());
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const terminal = new Tmux(80, 24);
  const started: number[] = [];
  t.after(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    terminal.kill();
  });
  // SHELL on the command line: tmux sets its own in the pane.
  terminal.start(`SHELL=${shellQuote(path.join(r.home, 'shell.sh'))} exec sh "$IDE_COMPANION_DIR/enter.sh"`, {
    cwd: r.home,
    env: { TMPDIR: r.tmpdir, HOME: r.home, IDE_COMPANION_DIR: path.join(r.home, 'd') },
  });
  await waitFor(
    () => fs.existsSync(deafPid) && fs.existsSync(jobPid) && fs.readFileSync(deafPid, 'utf8').endsWith('\n'),
    'the shell and its jobs',
    10_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- terminal ---\n${terminal.screen()}`);
  });
  started.push(pidIn(jobPid), pidIn(deafPid));
  const ide = path.join(r.tmpdir, 'gemini', 'ide');
  assert.equal(fs.readdirSync(ide).filter((n) => n.startsWith('gemini-ide-server-')).length, 1, 'the discovery file while the shell runs');
  terminal.kill();
  await cleanedUp(() => {
    assert.deepEqual(fs.readdirSync(r.tmpdir, { recursive: true }), [], 'the discovery file and the folders made for it gone');
    assert.equal(fs.existsSync(path.join(r.home, 'd')), false, 'the private folder gone');
  });
  await waitFor(() => !alive(pidIn(jobPid)) || undefined, "the shell's job hung up", 5_000);
  assert.ok(alive(pidIn(deafPid)), 'the child deaf to SIGHUP runs on: the cleanup did not wait for it');
});
