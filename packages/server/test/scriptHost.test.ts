/**
 * ScriptHost, the host core both script hosts frame (Neovim's msgpack-RPC, JSON lines), with a real
 * companion and a framing that records what the core asks it to say: the order and the kinds are the
 * core's, so they are checked once here, whatever wire carries them.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { UNHEARD_MENTION } from '@ide-companion/protocol';
import { silentLogger } from '../src/logger.js';
import { ScriptHost, type ScriptFraming } from '../src/scriptHost.js';

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'script-host-')));
  const said: Array<[string, unknown]> = [];
  let exited!: (code: number) => void;
  const exit = new Promise<number>((resolve) => (exited = resolve));
  let readyNow!: () => void;
  const ready = new Promise<void>((resolve) => (readyNow = resolve));
  const framing: ScriptFraming = {
    request: async (action) => {
      said.push(['request', action]);
      return (action === 'selectedText' ? { text: null } : null) as never;
    },
    ready: (info) => {
      said.push(['ready', info.workspacePath]);
      readyNow();
    },
    sessions: (sessions) => said.push(['sessions', sessions.length]),
    roots: () => said.push(['roots', null]),
    say: (line) => void said.push(['say', line.message]),
    tell: (problem) => said.push([problem.kind, 'path' in problem ? `${problem.message} (${problem.path})` : problem.message]),
    failed: (message) => {
      said.push(['failed', message]);
    },
  };
  const host = new ScriptHost(framing, {
    logger: silentLogger,
    exit: (code) => exited(code),
    defaults: () => ({ ideInfo: { name: 'test', displayName: 'Test' }, roots: [dir] }),
    failureCode: () => 3,
  });
  // A failed assertion still stops the companion: its listening server would hold the test process open.
  const cleanup = async () => {
    await host.stop('test over');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { dir, said, exit, ready, host, cleanup };
}

test('events sent while the companion starts are held and applied after ready, in order; problems are said after ready', { timeout: 30_000 }, async () => {
  const t = setUp();
  try {
    const file = path.join(t.dir, 'a.txt');
    fs.writeFileSync(file, 'a\n');
    assert.equal(t.host.event({ type: 'focus', path: file }), false, 'before hello an event is refused');
    assert.deepEqual(t.said, [['refused', 'not started yet']]);
    t.said.length = 0;
    t.host.hello({ type: 'hello', agents: ['gemini'], capabilities: [] });
    // At once after hello, before the companion listens.
    assert.equal(t.host.event({ type: 'focus', path: file, cursor: { line: 1, character: 2 } }), true);
    assert.equal(t.host.event({ type: 'diffRejected', diffId: 'nope' }), true);
    assert.equal(t.host.event({ type: 'mention', path: file }), true);
    assert.equal(t.host.companion, undefined, 'not listening yet');
    assert.deepEqual(t.said, [], 'nothing is said before ready');
    await t.ready;
    assert.deepEqual(t.said, [
      ['ready', t.dir],
      ['staleDiff', 'no pending diff nope'],
      ['unheardMention', `${UNHEARD_MENTION} (${file})`],
    ]);
    const active = t.host.companion!.context.activeFile();
    assert.equal(active?.filePath, file);
    assert.deepEqual(active?.cursor, { line: 1, character: 2 });
    assert.ok(t.host.health()!.length > 0, 'the health report is made once the companion listens');
    // A second hello changes nothing.
    t.host.hello({ type: 'hello' });
    assert.deepEqual(t.said.at(-1), ['refused', 'hello was already received']);
    // Stopping twice is one stop; the host exits 0.
    void t.host.stop('test');
    await t.host.stop('test again');
    assert.equal(await t.exit, 0);
    assert.equal(fs.existsSync(t.host.companion!.discoveryFilePath!), false, 'its discovery file is gone');
  } finally {
    await t.cleanup();
  }
});

test(
  'a hello the companion cannot start from is said once as failed, the host exits with the failure code, and later events are refused',
  { timeout: 30_000 },
  async () => {
    const t = setUp();
    try {
      t.host.hello({ type: 'hello', agents: ['nosuch'] });
      assert.equal(await t.exit, 3);
      assert.equal(t.said.length, 1);
      assert.equal(t.said[0]![0], 'failed');
      assert.match(String(t.said[0]![1]), /unknown agent "nosuch"/);
      assert.equal(t.host.event({ type: 'focus', path: path.join(t.dir, 'a.txt') }), false);
      assert.deepEqual(t.said.at(-1), ['refused', 'not started yet']);
      assert.equal(t.host.companion, undefined);
    } finally {
      await t.cleanup();
    }
  },
);
