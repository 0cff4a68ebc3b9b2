/**
 * The editor seam: one event vocabulary applied by applyEditorEvent, one action
 * interface whose optional capabilities become MCP tools, exercised through the
 * real MCP SDK client over loopback.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { MAX_DIAGNOSTICS, MAX_DIAGNOSTIC_MESSAGE_LENGTH, type Diagnostic } from '@ide-companion/protocol';
import { Companion, applyEditorEvent, parseEditorEvent, type EditorActions } from '../src/index.js';
import { RecordingEditor, connectClient, startCompanion } from './helpers.js';

const text = (r: any) => r.content[0].text as string;

function diffsOnly(): EditorActions {
  const r = new RecordingEditor();
  return { showDiff: (d) => r.showDiff(d), diffText: (d) => r.diffText(d), closeDiff: (d, why) => r.closeDiff(d, why) };
}

test('events from the vocabulary reach the context; an invalid one is refused before it changes anything', () => {
  const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' }, context: { fileExists: () => true, windowMs: 0 } });
  try {
    applyEditorEvent(companion, parseEditorEvent({ type: 'focus', path: '/w/a.ts', cursor: { line: 3, character: 2 }, selectedText: 'sel' }));
    const before = JSON.stringify(companion.context.snapshot());
    assert.throws(() => parseEditorEvent({ type: 'cursor', path: '/w/a.ts', cursor: { line: 0, character: 1 } }), /line/);
    assert.throws(() => parseEditorEvent({ type: 'roots', roots: ['relative'] }), /absolute/);
    assert.throws(() => parseEditorEvent({ type: 'teleport' }), /invalid editor event/);
    assert.equal(JSON.stringify(companion.context.snapshot()), before);
    const active = companion.context.snapshot().workspaceState!.openFiles![0]!;
    assert.deepEqual(
      { path: active.path, cursor: active.cursor, selectedText: active.selectedText },
      { path: '/w/a.ts', cursor: { line: 3, character: 2 }, selectedText: 'sel' },
    );
    applyEditorEvent(companion, { type: 'trust', trusted: false });
    assert.equal(companion.context.snapshot().workspaceState!.isTrusted, false);
    assert.equal(applyEditorEvent(companion, { type: 'diffRejected', diffId: 'gone' }), false, 'a decision for no pending diff changes nothing');
  } finally {
    companion.context.dispose();
  }
});

test('the tools follow the capabilities the editor implements', async () => {
  const bare = await startCompanion({ editor: diffsOnly() });
  const rich = await startCompanion({ editor: { ...diffsOnly(), getDiagnostics: () => ({ diagnostics: [] }), openFile: () => undefined } });
  try {
    const names = async (h: typeof bare) => {
      const c = await connectClient(h.companion);
      const list = (await c.client.listTools()).tools.map((t) => t.name).sort();
      await c.close();
      return list;
    };
    assert.deepEqual(await names(bare), ['closeDiff', 'getActiveFile', 'getWorkspaceFolders', 'openDiff']);
    assert.deepEqual(await names(rich), ['closeDiff', 'getActiveFile', 'getDiagnostics', 'getWorkspaceFolders', 'openDiff', 'openFile']);
    assert.deepEqual(rich.companion.capabilities, ['openFile', 'getDiagnostics']);
  } finally {
    await bare.cleanup();
    await rich.cleanup();
  }
});

test('each capability tool asks the editor and answers JSON the protocol defines', async () => {
  const calls: Array<[string, unknown]> = [];
  const selection = { path: '/w/a.ts', text: 'héllo', start: { line: 1, character: 1 }, end: { line: 1, character: 6 } };
  const h = await startCompanion({
    editor: {
      ...diffsOnly(),
      openFile: (p) => void calls.push(['openFile', p]),
      getOpenEditors: () => ({ editors: [{ path: '/w/a.ts', isActive: true, isDirty: true, languageId: 'typescript' }] }),
      getSelection: () => ({ selection }),
      checkDocumentDirty: (p) => (calls.push(['dirty', p]), { isOpen: true, isDirty: false }),
      saveDocument: (p) => (calls.push(['save', p]), { saved: true }),
    },
  });
  const c = await connectClient(h.companion);
  try {
    const file = path.join(h.workspace, 'a.ts');
    fs.writeFileSync(file, 'x\n');
    const call = (name: string, args: Record<string, unknown> = {}) => c.client.callTool({ name, arguments: args }) as Promise<any>;
    assert.deepEqual(JSON.parse(text(await call('openFile', { path: file, line: 4 }))), { opened: file, line: 4 });
    assert.deepEqual(JSON.parse(text(await call('getOpenEditors'))).editors[0].languageId, 'typescript');
    assert.deepEqual(JSON.parse(text(await call('getSelection'))), { selection });
    assert.deepEqual(JSON.parse(text(await call('checkDocumentDirty', { path: file }))), { isOpen: true, isDirty: false });
    assert.deepEqual(JSON.parse(text(await call('saveDocument', { path: file }))), { saved: true });
    assert.deepEqual(JSON.parse(text(await call('getWorkspaceFolders'))), { folders: [h.workspace] });
    assert.deepEqual(calls, [
      // An argument left out is absent in what the editor is handed (no key holding undefined: msgpack would send nil).
      ['openFile', { path: file, line: 4 }],
      ['dirty', { path: file }],
      ['save', { path: file }],
    ]);
  } finally {
    await c.close();
    await h.cleanup();
  }
});

test('openFile and saveDocument act only inside the workspace, a symlink out included; the editor is not asked', async () => {
  let asked = 0;
  const h = await startCompanion({
    editor: { ...diffsOnly(), openFile: () => void asked++, saveDocument: () => (asked++, { saved: true }) },
  });
  const c = await connectClient(h.companion);
  try {
    const outside = path.join(h.tmp, 'outside.txt');
    fs.writeFileSync(outside, 'secret\n');
    const link = path.join(h.workspace, 'link.txt');
    fs.symlinkSync(outside, link);
    for (const [name, p] of [
      ['openFile', outside],
      ['openFile', link],
      ['saveDocument', link],
      ['openFile', path.join(h.workspace, 'missing.txt')],
      ['openFile', 'relative.txt'],
    ] as const) {
      const r: any = await c.client.callTool({ name, arguments: { path: p } });
      assert.equal(r.isError, true, `${name} ${p}`);
    }
    assert.equal(asked, 0);
  } finally {
    await c.close();
    await h.cleanup();
  }
});

test('getDiagnostics filters by severity and bounds the count and each message, saying so', async () => {
  const at = (line: number) => ({ start: { line, character: 1 }, end: { line, character: 2 } });
  const many: Diagnostic[] = [];
  for (let i = 1; i <= MAX_DIAGNOSTICS + 100; i++)
    many.push({ path: '/w/a.ts', range: at(i), severity: i % 2 ? 'warning' : 'hint', message: 'm', source: 'ts' });
  many.push({ path: '/w/b.ts', range: at(1), severity: 'error', message: 'x'.repeat(MAX_DIAGNOSTIC_MESSAGE_LENGTH + 50), code: 2304 });
  let asked: unknown;
  const h = await startCompanion({ editor: { ...diffsOnly(), getDiagnostics: (p) => ((asked = p), { diagnostics: many }) } });
  const c = await connectClient(h.companion);
  try {
    const all = JSON.parse(text(await c.client.callTool({ name: 'getDiagnostics', arguments: {} })));
    assert.deepEqual(asked, {});
    assert.equal(all.diagnostics.length, MAX_DIAGNOSTICS);
    assert.equal(all.diagnostics[0].severity, 'error', 'most severe first');
    assert.ok(all.diagnostics[0].message.length < MAX_DIAGNOSTIC_MESSAGE_LENGTH + 20);
    assert.match(all.truncated, /101 of 601 diagnostics left out/);
    assert.match(all.truncated, /1 messages cut/);
    const errorsOnly = JSON.parse(text(await c.client.callTool({ name: 'getDiagnostics', arguments: { path: '/w/b.ts', severity: 'error' } })));
    assert.deepEqual(asked, { path: '/w/b.ts' });
    assert.equal(errorsOnly.diagnostics.length, 1);
  } finally {
    await c.close();
    await h.cleanup();
  }
});

test('a slow, failing or confused editor fails the tool call with a clear error, never a hang', async () => {
  const h = await startCompanion({
    editorTimeoutMs: 100,
    editor: {
      ...diffsOnly(),
      getOpenEditors: () => new Promise(() => undefined),
      getSelection: () => {
        throw new Error('no window');
      },
      getDiagnostics: () => ({ diagnostics: [{ path: '/w/a.ts', severity: 'fatal' }] }) as never,
    },
  });
  const c = await connectClient(h.companion);
  try {
    const call = (name: string) => c.client.callTool({ name, arguments: {} }) as Promise<any>;
    const slow = await call('getOpenEditors');
    assert.equal(slow.isError, true);
    assert.match(text(slow), /did not answer getOpenEditors within 0.1 s/);
    assert.match(text(await call('getSelection')), /no window/);
    assert.match(text(await call('getDiagnostics')), /malformed/);
  } finally {
    await c.close();
    await h.cleanup();
  }
});

test('the container hint every end shows follows the environment the CLI would see', async () => {
  const { CONTAINER_MARKER_FILES, containerHint } = await import('@ide-companion/protocol');
  const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' } });
  const saved = { REMOTE_CONTAINERS: process.env['REMOTE_CONTAINERS'], SSH_CONNECTION: process.env['SSH_CONNECTION'] };
  try {
    delete process.env['REMOTE_CONTAINERS'];
    delete process.env['SSH_CONNECTION'];
    // In a container (as CI's machines are) gemini would dial host.docker.internal: the hint says what to export.
    if (CONTAINER_MARKER_FILES.some((f) => fs.existsSync(f))) assert.match(companion.containerHint ?? '', /export REMOTE_CONTAINERS=1/);
    else assert.equal(companion.containerHint, undefined);
    const inDocker = containerHint({}, (p) => p === '/.dockerenv');
    assert.match(inDocker!, /export REMOTE_CONTAINERS=1/);
    process.env['REMOTE_CONTAINERS'] = '1';
    assert.equal(companion.containerHint, undefined, 'REMOTE_CONTAINERS makes gemini dial loopback');
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    companion.context.dispose();
  }
});
