import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { discoveryDir, discoveryFileName, joinWorkspacePaths, parseDiscoveryFile, parseDiscoveryFileName, splitWorkspacePath } from '../src/index.js';

test('discovery file names follow gemini-ide-server-PID-PORT.json and parse back', () => {
  assert.equal(discoveryFileName(1234, 5678), 'gemini-ide-server-1234-5678.json');
  assert.deepEqual(parseDiscoveryFileName('gemini-ide-server-1234-5678.json'), { pid: 1234, port: 5678 });
});

test('names the CLI would not match are not discovery files', () => {
  for (const name of ['gemini-ide-server-1234.json', '.gemini-ide-server-1-2.json.abc.tmp', 'gemini-ide-server-a-2.json', 'x-gemini-ide-server-1-2.json']) {
    assert.equal(parseDiscoveryFileName(name), undefined, name);
  }
});

test('a non-positive pid or port is refused when building a name', () => {
  assert.throws(() => discoveryFileName(0, 1), RangeError);
  assert.throws(() => discoveryFileName(1, 1.5), RangeError);
});

test('the discovery dir is tmpdir/gemini/ide', () => {
  assert.equal(discoveryDir('/tmp', path.posix), '/tmp/gemini/ide');
});

test('workspace roots join and split with the OS delimiter', () => {
  assert.equal(joinWorkspacePaths(['/a', '/b c'], ':'), '/a:/b c');
  assert.deepEqual(splitWorkspacePath('/a:/b c:', ':'), ['/a', '/b c']);
  assert.deepEqual(splitWorkspacePath('C:\\a;D:\\b', ';'), ['C:\\a', 'D:\\b']);
});

test('parseDiscoveryFile names what is wrong', () => {
  assert.throws(() => parseDiscoveryFile('{'), /not JSON/);
  assert.throws(() => parseDiscoveryFile('{"port":1,"workspacePath":"/a","authToken":"t"}'), /ideInfo/);
  const ok = parseDiscoveryFile('{"port":1,"workspacePath":"/a","authToken":"t","ideInfo":{"name":"n","displayName":"N"}}');
  assert.equal(ok.ideInfo.displayName, 'N');
});
