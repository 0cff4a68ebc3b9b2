/**
 * Amp (issue 31) against `ide-companion serve`: the real `amp` cannot start
 * offline (docs/agents.md), so its side is testkit's ampClient, the shapes
 * amp.nvim answers. serve, for a user who has Amp (AMP_DATA_HOME), writes
 * its lock file and names the connection; an editFile opens in serve's
 * review: accepted there, it lands; rejected, the file is left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectAmpClient, skipUnless, waitFor, which } from '@ide-companion/testkit';
import { serveDirs, startServe } from './support/serveInTmux.js';

const skip = skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(
  "Amp's wire against ide-companion serve: named Amp; editFile accepted in serve's review lands, rejected changes nothing",
  { skip, timeout: 120_000 },
  async (t) => {
    const dirs = serveDirs('ide-companion-amp-serve-');
    const data = path.join(dirs.root, 'data');
    fs.mkdirSync(path.join(data, 'amp'), { recursive: true });
    const file = path.join(dirs.project, 'a.txt');
    fs.writeFileSync(file, 'original line\n');
    const { serve } = await startServe(t, dirs, { close: async () => undefined }, { AMP_DATA_HOME: data, HOME: dirs.root }, 'amp there connects', [80, 24]);
    const locks = fs.readdirSync(path.join(data, 'amp', 'ide')).filter((name) => name.endsWith('.json'));
    assert.equal(locks.length, 1, 'serve wrote the lock file');
    const lock = JSON.parse(fs.readFileSync(path.join(data, 'amp', 'ide', locks[0]!), 'utf8'));
    assert.deepEqual(lock.workspaceFolders, [fs.realpathSync(dirs.project)]);
    const amp = await connectAmpClient(lock);
    t.after(() => amp.close());
    await serve.waitForText('1 CLI session connected (Amp)', 30_000);

    const accepted = amp.request('editFile', { path: file, fullContent: 'line from the model\n' });
    await serve.waitForText('proposes a change to', 30_000);
    await serve.waitForText('+line from the model', 10_000);
    serve.type('a');
    const answer = (await accepted).editFile;
    assert.equal(answer.success, true, answer.message);
    assert.equal(fs.readFileSync(file, 'utf8'), 'line from the model\n');

    const rejected = amp.request('editFile', { path: file, fullContent: 'rejected text\n' });
    await serve.waitForText('+rejected text', 30_000);
    serve.type('r');
    assert.equal((await rejected).editFile.success, false);
    await waitFor(() => serve.screen().includes('Rejected'), 'serve says it was rejected', 10_000);
    assert.equal(fs.readFileSync(file, 'utf8'), 'line from the model\n', 'the rejected edit never reached the file');
  },
);
