import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DROID_NOTIFICATION,
  DROID_TOOLS,
  DroidActiveFileParamsSchema,
  DroidDiagnosticSchema,
  DroidLockFileSchema,
  DroidOpenDiffArgumentsSchema,
  portLockFileName,
} from '../src/index.js';

// The lock file as the CLI 0.225.2 took it in a live run (it connected and listed our tools): the port is the name.
const liveLock = '{"pid":26793,"ideName":"Neovim","workspaceFolders":["/tmp/droidproj"]}';

test("a lock file as Droid reads it parses, named by the companion's port", () => {
  const lock = DroidLockFileSchema.parse(JSON.parse(liveLock));
  assert.deepEqual(lock, { pid: 26793, ideName: 'Neovim', workspaceFolders: ['/tmp/droidproj'] });
  assert.equal(portLockFileName(41185), '41185.lock');
  // Fields the CLI ignores (a VS Code extension may write more) do not refuse the file.
  assert.equal(DroidLockFileSchema.safeParse({ ...lock, port: 41185 }).success, true);
});

test('a lock file Droid could not use, or we could not sweep, is refused', () => {
  const good = JSON.parse(liveLock) as Record<string, unknown>;
  const bad: Array<[string, Record<string, unknown>]> = [
    ['no pid', { ideName: 'Neovim', workspaceFolders: ['/w'] }],
    ['pid as a string', { ...good, pid: '26793' }],
    ['pid 0', { ...good, pid: 0 }],
    ['no ideName (the CLI lower-cases it in a VS Code terminal)', { pid: 1, workspaceFolders: ['/w'] }],
    ['workspaceFolders as one string', { ...good, workspaceFolders: '/tmp/droidproj' }],
    ['no workspace folder (the CLI would never match it)', { ...good, workspaceFolders: [] }],
    ['an empty folder', { ...good, workspaceFolders: [''] }],
  ];
  for (const [why, value] of bad) assert.equal(DroidLockFileSchema.safeParse(value).success, false, why);
});

test("the notification and tool names are the CLI's", () => {
  assert.deepEqual(Object.values(DROID_TOOLS).sort(), ['closeDiff', 'getIdeDiagnostics', 'openDiff', 'openFile']);
  assert.equal(DROID_NOTIFICATION.heartbeat, 'notifications/heartbeat');
  assert.equal(DroidOpenDiffArgumentsSchema.safeParse({ filePath: '/w/a.py', newContent: 'x\n' }).success, true);
  assert.equal(DroidOpenDiffArgumentsSchema.safeParse({ file_path: '/w/a.py', new_content: 'x\n' }).success, false);
});

test('an activeFile without lineCount is refused, as the CLI refuses it', () => {
  const params = {
    path: '/w/a.py',
    fileName: '/w/a.py',
    isDirty: false,
    lineCount: 1,
    selection: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 5, selectedText: 'print' },
  };
  assert.equal(DroidActiveFileParamsSchema.safeParse(params).success, true);
  const { lineCount: _dropped, ...withoutLineCount } = params;
  assert.equal(DroidActiveFileParamsSchema.safeParse(withoutLineCount).success, false);
});

test("a diagnostic uses VS Code's severities 0-3", () => {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  assert.equal(DroidDiagnosticSchema.safeParse({ severity: 0, message: 'm', source: 'lint', range }).success, true);
  assert.equal(DroidDiagnosticSchema.safeParse({ severity: 'error', message: 'm', range }).success, false);
  assert.equal(DroidDiagnosticSchema.safeParse({ severity: 4, message: 'm', range }).success, false);
});
