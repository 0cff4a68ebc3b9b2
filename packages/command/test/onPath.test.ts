/** onPath: the first executable file of that name in PATH's folders, as path.resolve names it, whatever the folder's spelling. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import { onPath } from '../src/pluginInstall.js';

const dir = makeTempDir();
after(() => dir.cleanup());

function executable(folder: string, name: string, mode = 0o755): string {
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  fs.writeFileSync(file, '#!/bin/sh\n', { mode });
  return file;
}

test('the first folder holding an executable file wins; a missing command is undefined', { skip: process.platform === 'win32' }, () => {
  const first = path.join(dir.path, 'first');
  const second = path.join(dir.path, 'second');
  executable(first, 'not-executable', 0o644);
  executable(second, 'not-executable');
  const tool = executable(second, 'tool');
  fs.mkdirSync(path.join(first, 'folder-named-tool', 'x'), { recursive: true });
  fs.renameSync(path.join(first, 'folder-named-tool'), path.join(first, 'tool'));
  const env = { PATH: ['', path.join(dir.path, 'none'), first, second].join(path.delimiter) };
  assert.equal(onPath('tool', env), tool);
  assert.equal(onPath('not-executable', env), path.join(second, 'not-executable'));
  assert.equal(onPath('missing', env), undefined);
  assert.equal(onPath('tool', {}), undefined);
});

test(
  'folders written with a trailing slash, `.`, `..`, twice-slashed or relative give the path path.resolve gives',
  { skip: process.platform === 'win32' },
  () => {
    const bin = path.join(dir.path, 'spelled', 'bin');
    const tool = executable(bin, 'spelled-tool');
    const relative = path.relative(process.cwd(), bin);
    for (const spelling of [`${bin}/`, `${bin}/.`, `${bin}/../bin`, bin.replace('/spelled/', '//spelled/'), relative, `./${relative}`]) {
      assert.equal(onPath('spelled-tool', { PATH: spelling }), path.resolve(spelling, 'spelled-tool'), spelling);
      assert.equal(onPath('spelled-tool', { PATH: spelling }), tool, spelling);
    }
  },
);
