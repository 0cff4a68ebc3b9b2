/**
 * Qwen Code's face (issue 19): every companion also writes Qwen Code's lock
 * file, `QWEN_HOME/ide/<PORT>.lock`, private and atomic, with what Qwen Code
 * reads (port, workspacePath, ppid, authToken, ideName); a client that takes
 * its token connects over real HTTP; the file goes when the companion stops,
 * and a dead IDE's file is swept at the next start; the terminals carry
 * QWEN_CODE_IDE_SERVER_PORT and QWEN_CODE_IDE_WORKSPACE_PATH.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { connectRecordingClient, makeTempDir } from '@ide-companion/testkit';
import { Companion } from '../src/companion.js';
import { qwenIdeDir, sweepStaleQwenLockFiles } from '../src/faces/qwen.js';
import { silentLogger } from '../src/logger.js';

function companionIn(t: import('node:test').TestContext, options: { agents?: Array<'gemini' | 'qwen' | 'claude'> } = {}) {
  const tmp = makeTempDir('ide-companion-qwen-');
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const qwenDir = path.join(tmp.path, 'qwen-home', 'ide');
  const companion = new Companion({
    ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
    workspaceRoots: [workspace],
    tmpdir: tmp.path,
    logger: silentLogger,
    handleSignals: false,
    facePaths: { qwen: qwenDir, claude: path.join(tmp.path, 'claude', 'ide') },
    ...options,
  });
  t.after(async () => {
    await companion.stop();
    tmp.cleanup();
  });
  return { companion, workspace, qwenDir };
}

test("the lock file Qwen Code reads: private, with the companion's port, workspace, IDE pid, token and name; its token connects as Qwen Code", async (t) => {
  const { companion, workspace, qwenDir } = companionIn(t);
  await companion.start();
  const file = path.join(qwenDir, `${companion.port}.lock`);
  assert.equal(companion.lockFilePath('qwen'), file);
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  assert.equal((fs.statSync(qwenDir).mode & 0o777).toString(8), '700');
  const lock = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(lock).sort(), ['authToken', 'ideInfo', 'ideName', 'port', 'ppid', 'workspacePath']);
  assert.deepEqual(lock['ideInfo'], { name: 'test-ide', displayName: 'Test IDE' });
  assert.equal(lock['port'], companion.port);
  assert.equal(lock['workspacePath'], fs.realpathSync(workspace));
  assert.equal(lock['ppid'], process.pid);
  assert.equal(lock['ideName'], 'Test IDE');
  const client = await connectRecordingClient({ port: lock['port'] as number, token: lock['authToken'] as string });
  const tools = await client.client.listTools();
  assert.ok(tools.tools.length > 0, "the companion answers tools/list with the lock file's token");
  assert.notEqual(lock['authToken'], companion.authToken, "Qwen's face has a token of its own");
  assert.deepEqual(
    companion.sessionList.map((s) => s.agent),
    ['qwen'],
    'the session is known as Qwen Code by its token',
  );
  await client.close();
  assert.equal(companion.terminalEnv['QWEN_CODE_IDE_SERVER_PORT'], String(companion.port));
  assert.equal(companion.terminalEnv['QWEN_CODE_IDE_WORKSPACE_PATH'], fs.realpathSync(workspace));
  await companion.stop();
  assert.equal(fs.existsSync(file), false, 'stop removes it');
});

test('with the Qwen face off: no lock file and no Qwen variables', async (t) => {
  const { companion, qwenDir } = companionIn(t, { agents: ['gemini', 'claude'] });
  await companion.start();
  assert.equal(companion.lockFilePath('qwen'), undefined);
  assert.equal(fs.existsSync(qwenDir), false);
  assert.equal(companion.terminalEnv['QWEN_CODE_IDE_SERVER_PORT'], undefined);
});

test("a lock file whose IDE is dead is swept; a live one, another's, or one that does not parse is left", (t) => {
  const tmp = makeTempDir('ide-companion-qwen-sweep-');
  t.after(() => tmp.cleanup());
  const dir = tmp.path;
  const write = (name: string, content: string) => fs.writeFileSync(path.join(dir, name), content);
  write('1111.lock', JSON.stringify({ port: 1111, ppid: 999_999_999 }));
  write('2222.lock', JSON.stringify({ port: 2222, ppid: process.pid }));
  write('3333.lock', 'not json');
  write('notes.txt', JSON.stringify({ ppid: 999_999_999 }));
  assert.deepEqual(sweepStaleQwenLockFiles(dir), ['1111.lock']);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['2222.lock', '3333.lock', 'notes.txt']);
});

// The sweep read each N.lock with readFileSync: a FIFO by that name in the user's folder held the companion's start
// until some writer came. It reads a regular file only now, opened without blocking.
test('a FIFO named like a lock file is left, and never holds the sweep', { skip: process.platform === 'win32' }, (t) => {
  const tmp = makeTempDir('ide-companion-qwen-fifo-');
  t.after(() => tmp.cleanup());
  const fifo = path.join(tmp.path, '4444.lock');
  execFileSync('mkfifo', [fifo]);
  // Whoever opens the FIFO to write, 3 s from now, ends a read blocked on it (so the old code ends too).
  const writer = spawn('sh', ['-c', 'sleep 3; printf "{}" > "$1"', 'sh', fifo], { stdio: 'ignore' });
  t.after(() => writer.kill());
  const started = Date.now();
  assert.deepEqual(sweepStaleQwenLockFiles(tmp.path), []);
  assert.ok(Date.now() - started < 1_000, `the sweep took ${Date.now() - started} ms`);
  assert.equal(fs.lstatSync(fifo).isFIFO(), true, 'left in place');
});

test("the folder is Qwen Code's: QWEN_HOME/ide when set, else ~/.qwen/ide", () => {
  assert.equal(qwenIdeDir({ QWEN_HOME: '/x/qh' }), path.join('/x/qh', 'ide'));
  assert.match(qwenIdeDir({}), /[\\/]\.qwen[\\/]ide$/);
});
