/**
 * Gemini CLI elsewhere reaches `ide-companion serve` here (issue 18, docs/remote.md):
 * in a --network=none container, in its own --sandbox, and over SSH to a
 * remote that cannot see this loopback, each with the real gemini 0.61.0
 * (testkit's remoteFlows). The user reviews the proposal in serve's terminal:
 * edits it in $EDITOR (CRLF, non-ASCII, no final newline) and accepts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import {
  containerFlow,
  type EditorHost,
  IDE_COMPANION_BIN,
  makeTempDir,
  ORIGINAL_TEXT,
  REMOTE_STEP_TIMEOUT_MS,
  remoteFlowSkips,
  sandboxFlow,
  shellCommand,
  sshFlow,
  Tmux,
  editorWriting,
} from '@ide-companion/testkit';
import { SERVE_IDE_INFO } from '@ide-companion/terminal';

/** What the user's $EDITOR writes in serve. */
const EDITED = 'the user’s line\r\nsecond 😀';

const skip = remoteFlowSkips();

/** serve for a fresh project (a.txt, seen.txt), its $EDITOR writing EDITED; torn down with the test. */
async function serveHost(t: TestContext): Promise<EditorHost> {
  const tmp = makeTempDir('ide-companion-remote-');
  const workspace = path.join(tmp.path, 'proj');
  const tmpdir = path.join(tmp.path, 'tmp');
  const scratch = path.join(tmp.path, 'scratch');
  for (const dir of [workspace, tmpdir, scratch]) fs.mkdirSync(dir);
  fs.writeFileSync(path.join(workspace, 'a.txt'), ORIGINAL_TEXT);
  const editor = editorWriting(tmp.path, EDITED);
  let serve = new Tmux(160, 50);
  t.after(async () => {
    await serve.stop();
    tmp.cleanup();
  });
  const startServe = async () => {
    serve.start(shellCommand([process.execPath, IDE_COMPANION_BIN, 'serve', '--workspace', workspace, '--no-color'], { TMPDIR: tmpdir, EDITOR: editor }), {
      cwd: tmp.path,
    });
    await serve.waitForText(`cd ${workspace} && gemini`, REMOTE_STEP_TIMEOUT_MS);
  };
  await startServe();
  return {
    displayName: SERVE_IDE_INFO.displayName,
    workspace,
    tmpdir,
    scratch,
    // A saved file: serve's watcher makes it the active file.
    focusSeen: async () => fs.writeFileSync(path.join(workspace, 'seen.txt'), 'seen\n'),
    async editAndAccept(file, expect) {
      await serve.waitForText(`proposes a change to ${expect?.shownPath ?? file}`, REMOTE_STEP_TIMEOUT_MS);
      await serve.waitForText('[a]ccept', REMOTE_STEP_TIMEOUT_MS);
      if (expect) {
        // The left side ("current") is the file the agent writes, not this machine's copy.
        const screen = serve.screen();
        assert.ok(screen.includes(`--- ${expect.shownPath}`), screen);
        for (const line of expect.base.trimEnd().split('\n')) assert.ok(screen.includes(`-${line}`), `the base line ${line} shown as current:\n${screen}`);
        assert.ok(!screen.includes(`-${ORIGINAL_TEXT.trimEnd()}`), `this machine's copy is not the base:\n${screen}`);
      }
      serve.type('e');
      await serve.waitForText('(with your edits)', REMOTE_STEP_TIMEOUT_MS);
      serve.type('a');
      return EDITED;
    },
    describe: () => serve.screen(),
    noSession: () => serve.waitForText('no CLI connected', REMOTE_STEP_TIMEOUT_MS).then(() => undefined),
    // The editor closed (its terminal gone) and started again on the same project.
    async restart() {
      await serve.stop();
      serve = new Tmux(160, 50);
      await startServe();
    },
  };
}

describe('gemini elsewhere, with ide-companion serve here', { timeout: 8 * 60_000 }, () => {
  test(
    'in a --network=none container from `ide-companion container --podman`: connected, container paths for the model, the edited accept on the host byte for byte; serve restarted, the same gemini goes on with it; the container stopped, serve ends the session',
    { skip: skip.podman },
    async (t) => {
      await containerFlow(t, await serveHost(t));
    },
  );

  test(
    'in a container made from the compose service of docs/remote.md by podman-compose (the file and the command line as written there): connected; serve restarted, the same gemini goes on with it; the container stopped, serve ends the session',
    { skip: skip.compose },
    async (t) => {
      await containerFlow(t, await serveHost(t), 'compose');
    },
  );

  test(
    'in a dev container made from the devcontainer.json of docs/remote.md (as the devcontainer CLI runs it with podman): connected; serve restarted, the same gemini goes on with it; the container stopped, serve ends the session',
    { skip: skip.podman },
    async (t) => {
      await containerFlow(t, await serveHost(t), 'devcontainer');
    },
  );

  test(
    "in gemini's sandbox (podman) with `ide-companion sandbox`'s exports: connected inside the sandbox, the edited accept byte for byte; serve restarted, the same gemini goes on with it",
    { skip: skip.podman },
    async (t) => {
      await sandboxFlow(t, await serveHost(t));
    },
  );

  test(
    'over `ide-companion ssh` to a remote that cannot reach this loopback: connected, remote paths for the model, the edited accept in the remote file; serve restarted, the same gemini goes on with it; the connection cut, serve ends the session and nothing stays there',
    { skip: skip.ssh },
    async (t) => {
      await sshFlow(t, await serveHost(t));
    },
  );
});
