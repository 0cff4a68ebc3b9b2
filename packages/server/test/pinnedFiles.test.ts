/**
 * A user's file read and written by descriptor (shared/pinnedFiles.ts, issue 35): the plain cases (a diff's original
 * read exactly, small and large through a releasable buffer), the refusals,
 * and a second local user racing swaps of a file and of a folder for links to root's 0600 file outside the
 * workspace while we read and write: never the outside file's text returned, never its bytes changed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import {
  NotARegularFileError,
  OutsideRootsError,
  PinnedFileError,
  pinnedFileHolds,
  readPinned,
  useProcFdForTesting,
  writePinned,
} from '@ide-companion/shared/pinnedFiles';
import { makeSharedWorkspace, makeTempDir, secondUser, skipUnlessSecondUser, startSwapRacer, type SecondUser } from '@ide-companion/testkit';

const dir = makeTempDir();
after(() => dir.cleanup());

/** Rounds per race and its bound in time. */
const ROUNDS = 400;
const RACE_MS = 60_000;

test("a diff's original: missing is undefined (a new file); small, large (past the releasable-buffer threshold) and empty files read back exactly", async () => {
  assert.equal(await readPinned(path.join(dir.path, 'missing.txt'), 1024), undefined);
  for (const [name, text] of [
    ['small.txt', 'é € 🚀 "q"\n'],
    ['large.txt', 'const s = "é € 🚀";\r\n'.repeat(150_000)], // ~3.6 MiB
    ['empty.txt', ''],
  ] as const) {
    const file = path.join(dir.path, name);
    fs.writeFileSync(file, text);
    assert.equal(await readPinned(file, 64 * 1024 * 1024), text, name);
  }
});

test('over the limit, a directory or a FIFO: a clear error', async () => {
  const big = path.join(dir.path, 'big.txt');
  fs.writeFileSync(big, 'x'.repeat(2048));
  await assert.rejects(readPinned(big, 1024), /over the 1024-byte limit/);
  await assert.rejects(readPinned(dir.path, 1024), NotARegularFileError);
  const fifo = path.join(dir.path, 'fifo');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(readPinned(fifo, 1024), /a FIFO/);
});

for (const viaProc of [true, false]) {
  const how = viaProc ? '' : ' (the fallback without /proc/self/fd)';
  if (viaProc && process.platform !== 'linux') continue;

  test(`reads and writes a file inside the roots; missing is undefined; a new file is made${how}`, async () => {
    useProcFdForTesting(viaProc ? undefined : false);
    try {
      const root = fs.mkdtempSync(path.join(dir.path, 'root-'));
      fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
      const file = path.join(root, 'a', 'b', 'f.txt');
      fs.writeFileSync(file, 'é € 🚀\n', { mode: 0o640 });
      fs.chmodSync(file, 0o640);
      assert.equal(await readPinned(file, 1024, { roots: [root] }), 'é € 🚀\n');
      assert.equal(await readPinned(path.join(root, 'a', 'missing.txt'), 1024, { roots: [root] }), undefined);
      assert.equal(await readPinned(path.join(root, 'nofolder', 'x.txt'), 1024, { roots: [root] }), undefined);
      writePinned(file, 'new text\n', { roots: [root], expect: 'é € 🚀\n' });
      assert.equal(fs.readFileSync(file, 'utf8'), 'new text\n');
      assert.equal(fs.statSync(file).mode & 0o777, 0o640, 'the mode is kept');
      assert.ok(pinnedFileHolds(file, 'new text\n', { roots: [root] }));
      assert.ok(!pinnedFileHolds(file, 'new text', { roots: [root] }));
      const fresh = path.join(root, 'a', 'new.txt');
      writePinned(fresh, 'made\n', { roots: [root], expect: null });
      assert.equal(fs.readFileSync(fresh, 'utf8'), 'made\n');
      assert.deepEqual(
        fs.readdirSync(path.join(root, 'a')).filter((n) => n.includes('ide-companion')),
        [],
        'no temporary file left',
      );
      // A link inside the roots to a file inside them is read as its target.
      fs.symlinkSync(file, path.join(root, 'link.txt'));
      assert.equal(await readPinned(path.join(root, 'link.txt'), 1024, { roots: [root] }), 'new text\n');
      // Without roots, any file.
      assert.equal(await readPinned(file, 1024), 'new text\n');
    } finally {
      useProcFdForTesting(undefined);
    }
  });

  test(`refuses outside the roots (a link too), links at the name, non-regular files, and an unexpected text${how}`, async () => {
    useProcFdForTesting(viaProc ? undefined : false);
    try {
      const root = fs.mkdtempSync(path.join(dir.path, 'root-'));
      const outsideFile = path.join(dir.path, `outside-${viaProc}.txt`);
      fs.writeFileSync(outsideFile, 'outside\n');
      fs.symlinkSync(outsideFile, path.join(root, 'out.txt'));
      fs.symlinkSync(dir.path, path.join(root, 'outdir'));
      await assert.rejects(readPinned(outsideFile, 1024, { roots: [root] }), OutsideRootsError);
      await assert.rejects(readPinned(path.join(root, 'out.txt'), 1024, { roots: [root] }), /outside the workspace folders .*through a link/);
      await assert.rejects(readPinned(path.join(root, 'outdir', path.basename(outsideFile)), 1024, { roots: [root] }), OutsideRootsError);
      assert.throws(() => writePinned(path.join(root, 'out.txt'), 'x', { roots: [root] }), OutsideRootsError);
      assert.throws(() => writePinned(path.join(root, 'outdir', 'new.txt'), 'x', { roots: [root] }), OutsideRootsError);
      assert.equal(fs.readFileSync(outsideFile, 'utf8'), 'outside\n');
      assert.ok(!fs.existsSync(path.join(dir.path, 'new.txt')));
      await assert.rejects(readPinned(root, 1024), NotARegularFileError);
      const inside = path.join(root, 'in.txt');
      fs.writeFileSync(inside, 'inside\n');
      assert.throws(() => writePinned(inside, 'x', { roots: [root], expect: 'other\n' }), /no longer holds what was expected; nothing was written/);
      assert.throws(() => writePinned(inside, 'x', { roots: [root], expect: null }), /exists now/);
      assert.equal(fs.readFileSync(inside, 'utf8'), 'inside\n');
      await assert.rejects(readPinned(inside, 3), /over the 3-byte limit/);
      // Without roots, a link is followed once, when found; a dangling one is refused, not followed on a write.
      fs.symlinkSync(path.join(dir.path, `nowhere-${viaProc}.txt`), path.join(root, 'dangling.txt'));
      assert.throws(() => writePinned(path.join(root, 'dangling.txt'), 'x'), PinnedFileError);
      assert.ok(!fs.existsSync(path.join(dir.path, `nowhere-${viaProc}.txt`)));
    } finally {
      useProcFdForTesting(undefined);
    }
  });
}

test(
  '/proc/self/fd is openat: a name opens in the folder held open, wherever its path went, and O_NOFOLLOW holds',
  { skip: process.platform !== 'linux' && 'Linux only' },
  () => {
    const top = fs.mkdtempSync(path.join(dir.path, 'openat-'));
    fs.mkdirSync(path.join(top, 'd'));
    fs.writeFileSync(path.join(top, 'd', 'f'), 'pinned\n');
    const fd = fs.openSync(path.join(top, 'd'), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    try {
      fs.renameSync(path.join(top, 'd'), path.join(top, 'moved'));
      fs.mkdirSync(path.join(top, 'd'));
      fs.writeFileSync(path.join(top, 'd', 'f'), 'other\n');
      assert.equal(fs.readFileSync(`/proc/self/fd/${fd}/f`, 'utf8'), 'pinned\n');
      fs.symlinkSync('/etc/hostname', path.join(top, 'moved', 'l'));
      assert.throws(() => fs.openSync(`/proc/self/fd/${fd}/l`, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW), { code: 'ELOOP' });
    } finally {
      fs.closeSync(fd);
    }
  },
);

/** Runs `round` ROUNDS times (bounded by RACE_MS) while the racer swaps; the racer's count of swaps. */
async function race(user: SecondUser, entry: string, kind: 'file' | 'folder', target: string, text: string, round: (i: number) => Promise<void>) {
  const racer = await startSwapRacer({ user, entry, kind, target, text, maxMs: RACE_MS });
  const end = Date.now() + RACE_MS;
  let rounds = 0;
  try {
    for (; rounds < ROUNDS && Date.now() < end; rounds++) await round(rounds);
  } finally {
    const { swaps, error } = await racer.stop();
    assert.equal(error, undefined, `the racer failed: ${error}`);
    assert.ok(swaps > 0, 'the racer swapped');
  }
  assert.equal(rounds, ROUNDS, `${ROUNDS} rounds within ${RACE_MS} ms`);
}

const skip = skipUnlessSecondUser();

for (const kind of ['file', 'folder'] as const) {
  test(
    `a second user swapping the ${kind} for a link to root's 0600 file: 0 outside reads, 0 outside writes in ${ROUNDS} rounds each`,
    { skip, timeout: 4 * RACE_MS },
    async () => {
      const user = secondUser() as SecondUser;
      const inside = 'the workspace file\n';
      const shared = makeSharedWorkspace(user, { 'r.txt': inside, 'sub/r.txt': inside });
      try {
        const roots = [shared.ws];
        const file = kind === 'file' ? path.join(shared.ws, 'r.txt') : path.join(shared.ws, 'sub', 'r.txt');
        const entry = kind === 'file' ? file : path.join(shared.ws, 'sub');
        const target = kind === 'file' ? shared.secret : shared.outside;
        // No swap: both work (during the race, how many get through depends on the machine's load: not asserted).
        assert.equal(await readPinned(file, 1 << 20, { roots }), inside);
        writePinned(file, inside, { roots, expect: inside });

        let outsideReads = 0;
        await race(user, entry, kind, target, inside, async () => {
          try {
            const text = await readPinned(file, 1 << 20, { roots });
            if (text === shared.secretText) outsideReads++;
          } catch (err) {
            assert.ok(err instanceof PinnedFileError || ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? ''), String(err));
          }
        });
        assert.equal(outsideReads, 0, `the outside file was read ${outsideReads} times of ${ROUNDS}`);

        await race(user, entry, kind, target, inside, async (i) => {
          try {
            writePinned(file, `accepted ${i}\n`, { roots });
          } catch (err) {
            assert.ok(err instanceof PinnedFileError || ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? ''), String(err));
          }
          await new Promise((resolve) => setImmediate(resolve));
        });
        assert.equal(fs.readFileSync(shared.secret, 'utf8'), shared.secretText, "the outside file's bytes are unchanged");
        assert.deepEqual(fs.readdirSync(shared.outside), ['r.txt'], 'nothing was made outside');
      } finally {
        shared.cleanup();
      }
    },
  );
}
