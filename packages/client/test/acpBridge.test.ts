/**
 * The ACP bridge's own rules, on real files: the workspace check (symlinks, relative
 * paths, control characters), reads with line/limit, the context blocks per
 * prompt capability, and a permission's diff reviewed in a real companion's diff.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { checkWorkspacePath, PathRefused } from '../src/acp/workspacePath.js';
import { IdeBridge, wholeFile, wholeFileOf, type AgentUi } from '../src/acp/ideBridge.js';
import { CompanionClient } from '../src/index.js';
import { startCompanion } from './helpers.js';
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

test('acp diff content: a whole file as is; a fragment applied where it is found once; else none', () => {
  assert.equal(wholeFile('old\n', null, 'new\n'), 'new\n');
  assert.equal(wholeFile(undefined, null, 'new\n'), 'new\n');
  assert.equal(wholeFile('old\n', 'old\n', 'new\n'), 'new\n');
  assert.equal(wholeFile(undefined, '', 'new\n'), 'new\n');
  assert.equal(wholeFile('a old b\n', 'old', 'new'), 'a new b\n');
  assert.equal(wholeFile('old old\n', 'old', 'new'), undefined, 'ambiguous');
  assert.equal(wholeFile('x\n', 'old', 'new'), undefined, 'not found');
  assert.equal(wholeFile(undefined, 'old', 'new'), undefined, 'no file to apply it to');
  assert.equal(wholeFile('x\n', '', 'new'), undefined, 'an empty fragment of a non-empty file');
});

test('acp diff content of one file in several hunks (codex-acp): each found once, applied together in file order; else none', () => {
  const before = 'a\nb\nc\nd\ne\n';
  const hunks = [
    { oldText: 'd\ne\n', newText: 'd\nE\n' },
    { oldText: 'a\nb\n', newText: 'a\nB\n' },
  ];
  assert.equal(wholeFileOf(before, hunks), 'a\nB\nc\nd\nE\n');
  assert.equal(wholeFileOf(before, [{ oldText: 'a\nb\n', newText: 'x\n' }]), 'x\nc\nd\ne\n', 'one diff: as wholeFile');
  assert.equal(wholeFileOf(before, [hunks[0]!, { oldText: 'c\nd\n', newText: 'C\n' }]), undefined, 'overlapping');
  assert.equal(wholeFileOf(before, [hunks[0]!, { oldText: 'z\n', newText: 'y\n' }]), undefined, 'one not found');
  assert.equal(wholeFileOf('a\na\nb\n', [hunks[0]!, { oldText: 'a\n', newText: 'A\n' }]), undefined, 'one ambiguous');
  assert.equal(wholeFileOf(before, [hunks[0]!, { oldText: null, newText: 'all\n' }]), undefined, 'a whole file among hunks');
  assert.equal(wholeFileOf(undefined, hunks), undefined, 'no file');
});

test('acp permission with a diff, real companion: outside the workspace refused unseen; one that does not apply asked in the terminal; edits not written over a file the agent did not write as proposed', async () => {
  const h = await startCompanion();
  const companion = new CompanionClient({ cwd: h.workspace, env: h.env, tmpdir: h.tmp, ideProcess: h.ideProcess, wellKnownPorts: false, reconnect: false });
  const out = makeTempDir('acp-perm-out-');
  try {
    assert.ok(await companion.connect());
    const ui = quietUi();
    const asked: string[] = [];
    ui.choose = (question) => {
      asked.push(question);
      return Promise.resolve('no');
    };
    const bridge = new IdeBridge({ ui, companion, roots: [h.workspace] });
    const options = [
      { optionId: 'yes', name: 'Allow', kind: 'allow_once' as const },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' as const },
    ];
    const permission = (toolCallId: string, diff: { path: string; oldText?: string | null; newText: string }) =>
      bridge.requestPermission({ sessionId: 's', options, toolCall: { toolCallId, title: 'Edit', content: [{ type: 'diff', ...diff }] } });

    // Outside the workspace: the reject option, no diff shown, nothing asked.
    const secret = path.join(out.path, 'secret.txt');
    fs.writeFileSync(secret, 'secret\n');
    assert.deepEqual(await permission('t1', { path: secret, newText: 'pwned\n' }), { outcome: { outcome: 'selected', optionId: 'no' } });
    assert.equal(h.view.shown.length, 0);
    assert.deepEqual(asked, []);
    assert.match(ui.notices.join('\n'), /refused the agent's change: .*outside the workspace/);

    // A fragment found twice cannot be shown as the whole file: asked in the terminal (answered there: reject).
    const file = path.join(h.workspace, 'a.txt');
    fs.writeFileSync(file, 'old old\n');
    assert.deepEqual(await permission('t2', { path: file, oldText: 'old', newText: 'new' }), { outcome: { outcome: 'selected', optionId: 'no' } });
    assert.equal(h.view.shown.length, 0);
    assert.match(asked[0] ?? '', /The agent asks permission: Edit/);

    // Accepted with edits; then the agent reports its write, but the file holds something else: the user's edits are not written over it.
    fs.writeFileSync(file, 'old\n');
    const answer = permission('t3', { path: file, oldText: 'old', newText: 'new' });
    const shown = await waitFor(() => h.view.shown[0], 'the diff in the editor');
    assert.equal(shown.newContent, 'new\n');
    h.companion.diffs.accept(shown.id, 'edited\n');
    assert.deepEqual(await answer, { outcome: { outcome: 'selected', optionId: 'yes' } });
    fs.writeFileSync(file, 'another program\n');
    bridge.onUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't3', status: 'completed' });
    await bridge.endTurn();
    assert.equal(fs.readFileSync(file, 'utf8'), 'another program\n');
    assert.match(ui.notices.join('\n'), /your edits to a\.txt were not written/);
    assert.deepEqual(bridge.takeNotes(), [], 'the agent is told of edits only when they were written');

    // Accepted with edits, and the agent's write failed: nothing written, said so.
    fs.writeFileSync(file, 'old\n');
    const failed = permission('t4', { path: file, oldText: 'old', newText: 'new' });
    const second = await waitFor(() => h.view.shown[1], 'the second diff');
    h.companion.diffs.accept(second.id, 'edited\n');
    await failed;
    bridge.onUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't4', status: 'failed' });
    await bridge.endTurn();
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
    assert.match(ui.notices.join('\n'), /the agent's change to a\.txt failed: your edits to it were not written/);
  } finally {
    await companion.stop();
    await h.cleanup();
    out.cleanup();
  }
});
