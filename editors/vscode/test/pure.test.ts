/**
 * The extension's parts that need no editor: character columns, who we are
 * in the discovery file, and where doctor finds VS Code extensions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '@ide-companion/testkit';
import { codePointColumn, utf16Offset } from '../src/positions.js';
import { ideInfoFor, idePidFor } from '../src/ideInfo.js';
import { findGoogleCompanion, findExtensionInstalls, EXTENSION_ID } from '../src/index.js';

test('columns count characters, not UTF-16 units, and convert back', () => {
  const line = 'a😀b𝄞c';
  // UTF-16 offsets 0,1,3,4,6,7 are the starts of a,😀,b,𝄞,c and the end.
  assert.deepEqual(
    [0, 1, 3, 4, 6, 7].map((o) => codePointColumn(line, o)),
    [1, 2, 3, 4, 5, 6],
  );
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((c) => utf16Offset(line, c)),
    [0, 1, 3, 4, 6, 7],
  );
  assert.equal(codePointColumn('plain', 3), 4);
  assert.equal(utf16Offset('plain', 99), 5, 'clamped to the line');
  assert.equal(utf16Offset('plain', 0), 0);
});

test('ideInfo names VS Code, its forks and code-server the way /ide status should show them', () => {
  assert.deepEqual(ideInfoFor('Visual Studio Code', 'desktop'), { name: 'vscode', displayName: 'VS Code' });
  assert.deepEqual(ideInfoFor('Cursor', 'desktop'), { name: 'cursor', displayName: 'Cursor' });
  assert.deepEqual(ideInfoFor('Windsurf', 'desktop'), { name: 'windsurf', displayName: 'Windsurf' });
  assert.deepEqual(ideInfoFor('VSCodium', 'desktop'), { name: 'vscodium', displayName: 'VSCodium' });
  assert.deepEqual(ideInfoFor('code-server', 'web'), { name: 'vscode', displayName: 'code-server' });
  assert.deepEqual(ideInfoFor('Theia IDE', 'desktop'), { name: 'vscodefork', displayName: 'Theia IDE' });
  assert.equal(idePidFor(4321, 99), 4321);
  assert.equal(idePidFor(1, 99), 99, 'an orphaned host names itself, not init');
});

test("doctor finds Google's companion (and ours) in the extension folders of VS Code, its forks and code-server", () => {
  const { path: home, cleanup } = makeTempDir('ide-companion-vscode-ext-');
  try {
    const google = path.join(home, '.vscode', 'extensions', 'google.gemini-cli-vscode-ide-companion-0.7.0');
    const cursor = path.join(home, '.cursor', 'extensions', 'google.gemini-cli-vscode-ide-companion-0.6.1-linux-x64');
    const ours = path.join(home, 'data', 'code-server', 'extensions', `${EXTENSION_ID}-0.1.0`);
    for (const dir of [google, cursor, ours, path.join(home, '.vscode', 'extensions', 'google.other-1.0.0')]) fs.mkdirSync(dir, { recursive: true });
    const env = { HOME: home, XDG_DATA_HOME: path.join(home, 'data') };
    assert.deepEqual(findGoogleCompanion(env), [
      { editor: 'VS Code', path: google, version: '0.7.0' },
      { editor: 'Cursor', path: cursor, version: '0.6.1' },
    ]);
    assert.deepEqual(findExtensionInstalls(EXTENSION_ID, env), [{ editor: 'code-server', path: ours, version: '0.1.0' }]);
    assert.deepEqual(findGoogleCompanion({ HOME: path.join(home, 'nowhere') }), []);
  } finally {
    cleanup();
  }
});
