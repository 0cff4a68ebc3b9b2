/**
 * Issue 27 item 2 through `ide-companion bridge` (Vim's and Emacs's host), on
 * the real bin's stdin/stdout: an editor's roots of `/` or a folder that does
 * not exist were accepted (or, in hello, stopped the bridge from starting).
 * Now each is refused with an `error` line saying why, and the sane roots stay.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { test } from 'node:test';
import { makeTempDir, repoRoot, waitFor } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

test('the bridge refuses `/` and a missing folder among the editor’s roots, in hello and in a roots event, with an error line; the real root stays', async (t) => {
  const tmp = makeTempDir();
  t.after(() => tmp.cleanup());
  const workspace = fs.realpathSync(tmp.path);
  const missing = path.join(workspace, 'gone');
  const host = spawn(process.execPath, [bin, 'bridge'], { env: { ...process.env, TMPDIR: tmp.path } });
  t.after(() => host.kill());
  const fromHost: any[] = [];
  readline.createInterface({ input: host.stdout }).on('line', (l) => fromHost.push(JSON.parse(l)));
  const send = (m: unknown) => host.stdin.write(`${JSON.stringify(m)}\n`);
  const errors = () => fromHost.filter((m) => m.type === 'error').map((m) => m.message as string);

  send({ type: 'hello', protocol: 1, pid: process.pid, ide: { name: 'scripted', displayName: 'Scripted' }, roots: ['/', workspace, missing] });
  const ready = await waitFor(() => fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
  assert.equal(ready.workspacePath, workspace);
  await waitFor(() => errors().length === 1, 'the refusal, after ready', 15_000);
  assert.ok(fromHost.findIndex((m) => m.type === 'error') > fromHost.indexOf(ready), 'said after ready: no failed start');
  assert.match(errors()[0]!, /workspace folder "\/" refused: it is the file system's root.*gone" refused: it does not exist/);

  // The host takes an end's roots by their real paths, as hello's: `//` is refused as the `/` it is.
  send({ type: 'roots', roots: ['//'] });
  await waitFor(() => errors().length === 2, 'the refusal of //', 15_000);
  assert.match(errors()[1]!, /^workspace folder "\/" refused: it is the file system's root/);
  assert.equal(JSON.parse(fs.readFileSync(ready.discoveryFile, 'utf8')).workspacePath, workspace);
});
