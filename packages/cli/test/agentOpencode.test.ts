/**
 * `ide-companion agent -- opencode acp` with the real opencode (pinned, .tools/opencode), offline against
 * our OpenAI-compatible mock on loopback, beside a real companion. opencode edits without asking by default
 * (and then writes the file itself: no review is possible); with `"permission": {"edit": "ask"}` in its
 * config it asks permission with the whole file as the tool call's `diff`, then writes through
 * fs/write_text_file: the diff opens once in the editor, at the permission. Checked: the selection reaches
 * the model's request; an edited accept lands the user's bytes; a reject leaves the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion } from '@ide-companion/server/testing';
import { ensureDiscoveryDir } from '@ide-companion/server';
import { findOpencode, makeTempDir, OPENCODE_AGENT_PROMPT, opencodeCommand, skipUnless, startOpenAiMock, waitFor } from '@ide-companion/testkit';
import { binEnv } from './support/clientCommands.js';
import { startAgentTerminal } from './support/agentTerminal.js';

const opencode = findOpencode();
const skip = skipUnless(opencode !== undefined, 'the pinned opencode (.tools/opencode)', 'run scripts/install-opencode.sh or .ci/run');

async function opencodeRun(name: string, after: string) {
  const dir = makeTempDir(`acp-opencode-${name}-`);
  const workspace = path.join(dir.path, 'ws');
  const tmpdir = path.join(dir.path, 'tmp');
  const home = path.join(dir.path, 'home');
  fs.mkdirSync(workspace);
  fs.mkdirSync(tmpdir);
  const file = path.join(workspace, 'a.txt');
  fs.writeFileSync(file, 'old\n');
  const mock = await startOpenAiMock(
    [{ tool: 'read', args: { filePath: file } }, { tool: 'write', args: { filePath: file, content: 'new\n' } }, { text: after }],
    OPENCODE_AGENT_PROMPT,
  );
  const t = await startTestCompanion({ tmp: tmpdir, workspace });
  ensureDiscoveryDir(tmpdir);
  t.companion.context.focus(file, { cursor: { line: 1, character: 1 }, selectedText: 'SELECTED-TEXT-42' });
  // The config (model on the mock, nothing past loopback) as testkit writes it for the TUI tests, with edits asked.
  opencodeCommand(opencode!, { home, baseUrl: mock.baseUrl });
  const config = path.join(home, 'opencode.json');
  fs.writeFileSync(config, JSON.stringify({ ...(JSON.parse(fs.readFileSync(config, 'utf8')) as object), permission: { edit: 'ask' } }));
  const xdg = (sub: string) => path.join(home, sub);
  const env = binEnv(tmpdir, {
    HOME: home,
    XDG_CONFIG_HOME: xdg('.config'),
    XDG_DATA_HOME: xdg('.local/share'),
    XDG_CACHE_HOME: xdg('.cache'),
    XDG_STATE_HOME: xdg('.local/state'),
    OPENCODE_CONFIG: config,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_SHARE: '1',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  });
  const term = startAgentTerminal(['--', opencode!.binary, 'acp'], { cwd: workspace, env });
  const cleanup = async () => {
    await term.stop();
    await t.cleanup();
    await mock.close();
    dir.cleanup();
  };
  return { file, mock, t, term, cleanup };
}

test(
  'agent + opencode acp: the selection reaches the model; the write is reviewed once in the editor; an edited accept lands those bytes',
  { skip, timeout: 240_000 },
  async () => {
    const r = await opencodeRun('accept', 'Wrote it.');
    try {
      await r.term.waitOut(/\[agent: OpenCode/, 'the agent started', 120_000);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
      assert.equal(shown.filePath, r.file);
      assert.equal(shown.newContent, 'new\n');
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n', 'nothing written before the accept');
      r.t.companion.diffs.accept(shown.id, 'new, edited by the user\n');
      await r.term.waitOut(/wrote a\.txt as accepted in the editor \(with your edits\)/, 'the accepted bytes written', 60_000);
      await r.term.waitOut(/Wrote it\./, 'the model turn after the tool result', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'new, edited by the user\n');
      assert.equal(r.t.view.shown.length, 1, 'reviewed once');
      assert.match(r.mock.agentRequests()[0]!, /SELECTED-TEXT-42/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);

test('agent + opencode acp: a reject in the editor leaves the file', { skip, timeout: 240_000 }, async () => {
  const r = await opencodeRun('reject', 'Understood.');
  try {
    await r.term.waitOut(/\[agent: OpenCode/, 'the agent started', 120_000);
    r.term.type('please change a.txt');
    const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
    r.t.companion.diffs.reject(shown.id);
    await r.term.waitOut(/rejected in the editor: a\.txt was not changed/, 'the reject told', 30_000);
    await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
    assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
    r.term.type('/quit');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});
