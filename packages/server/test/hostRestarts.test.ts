/**
 * server/hostRestarts.ts on its own clock: the 3-minute window, and a record that is not what it wrote
 * (a link, a large file, garbage). The policy end to end, in the host, is editors/jsonlines/test/hostRestarts.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HOST_DIED_ENV } from '@ide-companion/protocol';
import { makeTempDir } from '@ide-companion/testkit';
import { hostRestart, type HostRestartOptions } from '../src/hostRestarts.js';

const EDITOR = process.pid;

function options(tmpdir: string, now: number, waits: number[]): HostRestartOptions {
  return { env: { [HOST_DIED_ENV]: '9' }, editorPid: EDITOR, tmpdir, now: () => now, sleep: async (ms) => void waits.push(ms) };
}

test('a death stops counting 3 minutes after it: 4 deaths a second apart, then 3 minutes after the 1st the next is the 4th, and the one after the 5th (gives up)', async () => {
  const tmp = makeTempDir('ide-companion-restarts-');
  try {
    const waits: number[] = [];
    const t0 = 1_000_000_000;
    for (let i = 0; i < 4; i++) assert.equal((await hostRestart('vim', options(tmp.path, t0 + i * 1000, waits))).gaveUp, false);
    assert.deepEqual(waits, [500, 1000, 2000], 'the 1st waits nothing');
    // 3 minutes after the 1st death: it and only it has left the window.
    const late = t0 + 180_000;
    const fifth = await hostRestart('vim', options(tmp.path, late, waits));
    assert.deepEqual([fifth.gaveUp, fifth.deaths], [false, 4]);
    const sixth = await hostRestart('vim', options(tmp.path, late + 1, waits));
    assert.deepEqual([sixth.gaveUp, sixth.deaths], [true, 5]);
    assert.match(sixth.said!.message, /^the companion host stopped 5 times in 3 minutes \(exit code 9\); it is not restarted/);
    // A clock set back: deaths "in the future" are not counted either.
    const back = await hostRestart('vim', options(tmp.path, t0 - 1_000_000, waits));
    assert.deepEqual([back.gaveUp, back.deaths], [false, 1]);
  } finally {
    tmp.cleanup();
  }
});

test("a record that is not the host's (a link, too large, not JSON) counts as none, and a link's target is left alone", async () => {
  const tmp = makeTempDir('ide-companion-restarts-');
  try {
    const first = await hostRestart('vim', options(tmp.path, 5_000_000, []));
    assert.equal(first.deaths, 1);
    const record = path.join(tmp.path, `ide-companion-${process.getuid!()}`, 'host-restarts', `${EDITOR}.json`);
    assert.ok(fs.existsSync(record));
    const target = path.join(tmp.path, 'elsewhere.json');
    const deaths = JSON.stringify({ deaths: [5_000_000, 5_000_001, 5_000_002, 5_000_003] });
    fs.writeFileSync(target, deaths);
    fs.rmSync(record);
    fs.symlinkSync(target, record);
    assert.equal((await hostRestart('vim', options(tmp.path, 5_000_004, []))).deaths, 1, 'a link is not read');
    assert.equal(fs.readFileSync(target, 'utf8'), deaths, 'nor written through');
    assert.equal(fs.lstatSync(record).isSymbolicLink(), false);
    fs.writeFileSync(record, JSON.stringify({ deaths: [5_000_004, 5_000_004, 5_000_004, 5_000_004], pad: 'x'.repeat(2000) }));
    assert.equal((await hostRestart('vim', options(tmp.path, 5_000_005, []))).deaths, 1, 'too large');
    fs.writeFileSync(record, '{"deaths": [1, 2');
    assert.equal((await hostRestart('vim', options(tmp.path, 5_000_006, []))).deaths, 1, 'not JSON');
  } finally {
    tmp.cleanup();
  }
});
