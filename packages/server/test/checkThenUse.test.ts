/**
 * Issue 21 part 3, "the check acts on what it checked": openFile and
 * saveDocument checked the symlink-resolved path against the workspace roots
 * but handed the editor the path as given, so a link swapped between the check
 * and the editor's open reached outside the workspace. Every tool taking a
 * `path` now has it resolved once (tools/workspacePaths.ts) and the handler
 * hands the editor that path. Real Companion, real HTTP, the MCP SDK client.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { EditorActions } from '../src/index.js';
import { TOOLS } from '../src/tools/index.js';
import { RecordingEditor, connectClient, startCompanion } from './helpers.js';

const text = (r: any) => r.content[0].text as string;

/** What an editor did with a path it was handed: the path, and where it led when the editor used it. */
interface Use {
  action: string;
  handed: string;
  /** The real path at the moment of use (after an RPC-like hop); undefined if it no longer existed. */
  reached: string | undefined;
}

/** A RecordingEditor for the diffs plus openFile, saveDocument and checkDocumentDirty that use the path a moment later, as a real editor across RPC does. */
function usingEditor(uses: Use[]): EditorActions {
  const view = new RecordingEditor();
  const use = async (action: string, handed: string) => {
    await new Promise((r) => setTimeout(r, 1));
    let reached: string | undefined;
    try {
      reached = fs.realpathSync(handed);
    } catch {
      reached = undefined;
    }
    uses.push({ action, handed, reached });
  };
  return {
    showDiff: (d) => view.showDiff(d),
    diffText: (d) => view.diffText(d),
    closeDiff: (d, why) => view.closeDiff(d, why),
    openFile: async (p) => use('openFile', p.path),
    saveDocument: async (p) => (await use('saveDocument', p.path), { saved: true }),
    checkDocumentDirty: async (p) => (await use('checkDocumentDirty', p.path), { isOpen: false, isDirty: false }),
  };
}

const inside = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

// Regression (issue 21 part 3): the editor was handed `ws/link.txt`, checked while it pointed inside, opened after it was swapped to point outside.
test('a symlink swapped between check and use in a loop: the editor is never handed a path that leads outside the roots', async () => {
  const uses: Use[] = [];
  const h = await startCompanion({ editor: usingEditor(uses) });
  const c = await connectClient(h.companion);
  const outsideDir = path.join(h.tmp, 'outside');
  fs.mkdirSync(outsideDir);
  const secret = path.join(outsideDir, 'secret.txt');
  fs.writeFileSync(secret, 'secret\n');
  const target = path.join(h.workspace, 'inside.txt');
  fs.writeFileSync(target, 'inside\n');
  const link = path.join(h.workspace, 'link.txt');
  fs.symlinkSync(target, link);
  // The swapper: another thread flips the link between inside and outside (an atomic rename, so it always exists), bounded in count and time.
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const swapper = new Worker(
    `const fs = require('node:fs');
     const { link, targets, stop } = require('node:worker_threads').workerData;
     const deadline = Date.now() + 20000;
     for (let i = 0; i < 5e6 && Atomics.load(stop, 0) === 0 && Date.now() < deadline; i++) {
       const tmp = link + '.swap';
       try { fs.unlinkSync(tmp); } catch {}
       fs.symlinkSync(targets[i % 2], tmp);
       fs.renameSync(tmp, link);
     }`,
    { eval: true, workerData: { link, targets: [target, secret], stop } },
  );
  const ended = new Promise((resolve) => swapper.once('exit', resolve));
  const realRoot = fs.realpathSync(h.workspace);
  let refused = 0;
  try {
    const deadline = Date.now() + 15_000;
    for (let i = 0; i < 300 && Date.now() < deadline; i++) {
      const name = ['openFile', 'saveDocument'][i % 2]!;
      const r: any = await c.client.callTool({ name, arguments: { path: link } });
      if (r.isError) {
        assert.match(text(r), /outside the workspace folders|does not exist/, text(r));
        refused++;
      }
    }
  } finally {
    Atomics.store(stop, 0, 1);
    await ended;
    await c.close();
    await h.cleanup();
  }
  const escaped = uses.filter((u) => u.action !== 'checkDocumentDirty' && (u.reached === undefined || !inside(realRoot, u.reached)));
  assert.equal(
    escaped.length,
    0,
    `every path handed to the editor leads inside the workspace when used; ${escaped.length} did not, first ${JSON.stringify(escaped[0])}`,
  );
  for (const u of uses) assert.ok(inside(h.workspace, u.handed), `${u.handed} is named inside the root`);
  // The race was run: some checks saw the link inside (the editor was asked), some outside (refused).
  assert.ok(uses.length > 0 && refused > 0, `asked ${uses.length}, refused ${refused}`);
});

test('the editor is handed the checked path: a link inside the workspace opens its target; a root given as a link keeps its name', async () => {
  const uses: Use[] = [];
  const h = await startCompanion({ editor: usingEditor(uses) });
  // The editor names its root through a link (as /tmp is on macOS); files are named under that name.
  const rootLink = path.join(h.tmp, 'ws-link');
  fs.symlinkSync(h.workspace, rootLink);
  h.companion.context.setRoots([rootLink]);
  const c = await connectClient(h.companion);
  try {
    fs.mkdirSync(path.join(h.workspace, 'sub'));
    fs.writeFileSync(path.join(h.workspace, 'sub', 'a.txt'), 'a\n');
    fs.symlinkSync(path.join(h.workspace, 'sub'), path.join(h.workspace, 'dirlink'));
    const expected = path.join(rootLink, 'sub', 'a.txt');
    for (const given of [
      path.join(h.workspace, 'dirlink', 'a.txt'), // the real root's name, through a directory link
      path.join(rootLink, 'dirlink', 'a.txt'),
      path.join(rootLink, 'sub', '..', 'sub', 'a.txt'),
    ]) {
      const r: any = await c.client.callTool({ name: 'openFile', arguments: { path: given, line: 2 } });
      assert.deepEqual(JSON.parse(text(r)), { opened: expected, line: 2 }, given);
    }
    assert.deepEqual(
      uses.map((u) => u.handed),
      [expected, expected, expected],
    );
    // A read-only tool is handed the name normalized, not resolved: the editor knows the file by the name it opened.
    await c.client.callTool({ name: 'checkDocumentDirty', arguments: { path: `${rootLink}/./dirlink//x/../a.txt` } });
    assert.equal(uses.at(-1)!.handed, path.join(rootLink, 'dirlink', 'a.txt'));
  } finally {
    await c.close();
    await h.cleanup();
  }
});

// openDiff and closeDiff name theirs `filePath`: the CLI's own file, which the CLI writes itself; the companion only reads it
// (regular files only, diffCoordinator) and the editor shows it, so it is not resolved here.
test('every tool taking a path says how it is resolved (workspacePaths.ts), so none reaches the editor unchecked', () => {
  for (const definition of TOOLS) {
    const shape = (definition.tool.arguments as unknown as { shape: Record<string, unknown> }).shape;
    if ('path' in shape) assert.ok(definition.path, `${definition.tool.name} takes a path but declares no use`);
  }
  assert.deepEqual(
    TOOLS.filter((t) => t.path === 'act')
      .map((t) => t.tool.name)
      .sort(),
    ['openFile', 'saveDocument'],
  );
});
