/**
 * The scripts `ide-companion ssh` sends the remote, run here by sh: the setup
 * writes each file byte for byte, with the remote folder where the
 * placeholder stands, whatever the remote's TMPDIR holds (`#`, `&`, spaces;
 * the sed it used before broke on `#` and differs on BSD), and refuses a
 * folder a JSON string could not hold.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import { REMOTE_DIR_PLACEHOLDER, setupScript } from '../src/commands/ssh.js';

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
