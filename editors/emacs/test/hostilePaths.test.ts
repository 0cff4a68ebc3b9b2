/**
 * Issue 27 item 1 on a real Emacs (emacs -nw in tmux), through the real MCP SDK
 * client: what is Emacs's own, a roots event of `/` and a lone surrogate
 * (Emacs's JSON reader). The FIFO and the link swapped while the editor
 * visits the file are the conformance suite's, for every end
 * (packages/testkit/src/conformance/hostilePaths.ts).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { connectFromDiscovery, elispString, startEmacs, TIMEOUT } from './harness.js';

const skip = skipEmacsInTmux;
const text = (r: any) => r.content[0].text as string;

describe('Emacs: hostile paths', { skip, timeout: 90_000 }, () => {
  test('roots of `/` are refused and said', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'mine\n' } });
    t.after(() => emacs.close());
    await emacs.discovery();
    // A roots event of `/` (as a project at the file system's root would give): refused, and Emacs says so in the echo area.
    await emacs.eval(`(ide-companion--send (list :type "roots" :roots (vector "/" ${elispString(emacs.workspace)})))`);
    await waitFor(
      async () =>
        /ide-companion: workspace folder "\/" refused: it is the file system's root/.test(
          await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))'),
        ),
      'the refusal in *Messages*',
      TIMEOUT,
    );
    assert.equal(JSON.parse(fs.readFileSync((await emacs.discovery()).path, 'utf8')).workspacePath, emacs.workspace);
  });

  // Emacs's json-parse refuses a JSON-escaped lone surrogate and dropped the host's whole line: the call went unanswered.
  test('a lone surrogate: in a path it is refused at once (fuzz seed 2075220332 #93); in a proposal the diff is shown as UTF-8 carries it (U+FFFD)', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'mine\n' } });
    t.after(() => emacs.close());
    const c = await connectFromDiscovery((await emacs.discovery()).content);
    t.after(() => c.close());
    let started = Date.now();
    let r: any = await c.client.callTool({ name: 'checkDocumentDirty', arguments: { path: path.join(emacs.workspace, '\ud800lone.txt') } });
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /lone surrogate/);
    assert.ok(Date.now() - started < 2000, 'refused at once');

    const file = path.join(emacs.workspace, 'a.txt');
    started = Date.now();
    r = await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'half \ud83d of a pair\n' } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.ok(Date.now() - started < 4000, `openDiff answered in ${Date.now() - started} ms`);
    const shown = await waitFor(
      async () =>
        (await emacs.evalJson<string | null>(
          `(let (found) (maphash (lambda (_id d) (when (equal (ide-companion--diff-path d) ${elispString(file)}) (setq found (with-current-buffer (ide-companion--diff-proposal d) (buffer-string))))) ide-companion--diffs) (or found :null))`,
        )) ?? undefined,
      'the proposal in Emacs',
      TIMEOUT,
    );
    assert.equal(shown, 'half \ufffd of a pair\n');
  });
});
