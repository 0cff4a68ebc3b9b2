/**
 * The ACP bridge's own rules, on real files: the workspace check (symlinks, relative
 * paths, control characters), reads with line/limit, and the context blocks per
 * prompt capability.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '@ide-companion/testkit';
import { checkWorkspacePath, PathRefused } from '../src/acp/workspacePath.js';
import { IdeBridge, type AgentUi } from '../src/acp/ideBridge.js';
import { contextBlocks } from '../src/acp/promptContext.js';

function quietUi(): AgentUi & { notices: string[] } {
  const notices: string[] = [];
  return { notices, update: () => undefined, notice: (l) => notices.push(l), choose: () => Promise.resolve(undefined) };
}

test('acp workspace check: inside passes (a new file in a new folder too); links out, relative paths and control characters are refused', () => {
  const ws = makeTempDir('acp-ws-');
  const out = makeTempDir('acp-out-');
  try {
    fs.writeFileSync(path.join(ws.path, 'a.txt'), 'a');
    fs.writeFileSync(path.join(out.path, 'secret.txt'), 's');
    fs.symlinkSync(out.path, path.join(ws.path, 'link'));
    fs.symlinkSync(path.join(out.path, 'secret.txt'), path.join(ws.path, 'file-link'));
    assert.equal(checkWorkspacePath(path.join(ws.path, 'a.txt'), [ws.path]), path.join(ws.path, 'a.txt'));
    assert.equal(checkWorkspacePath(path.join(ws.path, 'new', 'b.txt'), [ws.path], true), path.join(ws.path, 'new', 'b.txt'));
    for (const [p, forWrite] of [
      [path.join(ws.path, 'link', 'secret.txt'), false],
      [path.join(ws.path, 'link', 'new.txt'), true],
      [path.join(ws.path, 'file-link'), true],
      [path.join(ws.path, '..', path.basename(out.path), 'secret.txt'), false],
      ['a.txt', false],
      [path.join(ws.path, 'a\u001b]52;c;x\u0007.txt'), true],
      [ws.path, true],
      [path.join(ws.path, 'missing.txt'), false],
    ] as const) {
      assert.throws(() => checkWorkspacePath(p, [ws.path], forWrite), PathRefused, `${JSON.stringify(p)} refused`);
    }
  } finally {
    ws.cleanup();
    out.cleanup();
  }
});

test('acp fs/read_text_file: line is 1-based, limit counts lines, the whole file is returned as is', async () => {
  const ws = makeTempDir('acp-read-');
  try {
    const file = path.join(ws.path, 'f.txt');
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    const bridge = new IdeBridge({ ui: quietUi(), companion: undefined, roots: [ws.path] });
    const read = async (line?: number, limit?: number) => (await bridge.readTextFile({ sessionId: 's', path: file, line, limit })).content;
    assert.equal(await read(), 'one\ntwo\nthree\n');
    assert.equal(await read(2), 'two\nthree\n');
    assert.equal(await read(1, 2), 'one\ntwo\n');
    assert.equal(await read(3, 1), 'three\n');
    assert.equal(await read(9, 1), '');
    await assert.rejects(read(0, 1), /line must be an integer from 1/);
  } finally {
    ws.cleanup();
  }
});

test('acp context blocks: none without open files; the selection as text, or as a resource when embeddedContext is declared', () => {
  assert.deepEqual(contextBlocks(undefined, undefined), []);
  const ctx = {
    workspaceState: {
      openFiles: [
        { path: '/w/a.ts', timestamp: 2, isActive: true, cursor: { line: 4, character: 2 }, selectedText: 'sel' },
        { path: '/w/b.ts', timestamp: 1 },
      ],
    },
  };
  const plain = contextBlocks(ctx, {});
  assert.equal(plain.length, 1);
  assert.match(
    (plain[0] as { text: string }).text,
    /Active file: \/w\/a\.ts\nCursor: line 4, character 2\nSelected text:\n```\nsel\n```\nOther open files:\n- \/w\/b\.ts/,
  );
  const embedded = contextBlocks(ctx, { embeddedContext: true });
  assert.equal(embedded.length, 2);
  assert.deepEqual(embedded[1], { type: 'resource', resource: { uri: 'file:///w/a.ts#L4', text: 'sel', mimeType: 'text/plain' } });
});

test('acp fs/write_text_file: a file changed while the user decided is not written over; a new file is written once', async () => {
  const ws = makeTempDir('acp-write-');
  try {
    const file = path.join(ws.path, 'f.txt');
    fs.writeFileSync(file, 'as the agent read it\n');
    const ui = quietUi();
    // The user says "write", but meanwhile another program changed the file.
    ui.choose = () => {
      fs.writeFileSync(file, 'changed meanwhile\n');
      return Promise.resolve('write');
    };
    const bridge = new IdeBridge({ ui, companion: undefined, roots: [ws.path] });
    await assert.rejects(bridge.writeTextFile({ sessionId: 's', path: file, content: 'the agent’s\n' }), /nothing was written/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'changed meanwhile\n');
    const fresh = path.join(ws.path, 'new', 'g.txt');
    ui.choose = () => Promise.resolve('write');
    await bridge.writeTextFile({ sessionId: 's', path: fresh, content: 'new\r\n' });
    assert.deepEqual(fs.readFileSync(fresh), Buffer.from('new\r\n'));
  } finally {
    ws.cleanup();
  }
});
