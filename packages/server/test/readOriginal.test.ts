/** The file shown beside a proposal: read exactly (small, and large through a releasable buffer), bounded, regular files only. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import { NotARegularFileError, readOriginal } from '../src/readOriginal.js';

const dir = makeTempDir();
after(() => dir.cleanup());

test('a missing file is a new file: undefined', async () => {
  assert.equal(await readOriginal(path.join(dir.path, 'missing.txt'), 1024), undefined);
});

test('small and large files read back exactly, multi-byte characters included', async () => {
  for (const [name, text] of [
    ['small.txt', 'é € 🚀 "q"\n'],
    ['large.txt', 'const s = "é € 🚀";\r\n'.repeat(150_000)], // ~3.6 MiB: past the releasable-buffer threshold
    ['empty.txt', ''],
  ] as const) {
    const file = path.join(dir.path, name);
    fs.writeFileSync(file, text);
    assert.equal(await readOriginal(file, 64 * 1024 * 1024), text, name);
  }
});

test('over the limit, a directory or a FIFO: a clear error', async () => {
  const big = path.join(dir.path, 'big.txt');
  fs.writeFileSync(big, 'x'.repeat(2048));
  await assert.rejects(readOriginal(big, 1024), /over the 1024-byte limit/);
  await assert.rejects(readOriginal(dir.path, 1024), NotARegularFileError);
  const fifo = path.join(dir.path, 'fifo');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(readOriginal(fifo, 1024), /a FIFO/);
});
