/**
 * Gemini CLI in a container with no network at all reaches the editor on the
 * host (issue 18): `ide-companion serve` on the host; `podman run
 * --network=none $(ide-companion container --podman) IMAGE gemini` with the
 * project mounted at /workspaces/NAME; the real gemini 0.61.0 inside
 * (--fake-responses) connects through the relay over the mounted socket, sees
 * the context as container paths, and its proposed write is reviewed in serve's
 * terminal on the host: edited and accepted, the host file holds the user's
 * bytes. Then `gemini --sandbox` with `ide-companion sandbox`'s exports.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  findGeminiCli,
  geminiCliDir,
  PODMAN_GLOBAL_FLAGS,
  PODMAN_RUN_FLAGS,
  podmanProblem,
  removeContainer,
  shellCommand,
  STRAY_IDE_ENV,
  HEADLESS_TRIGGER_ENV,
  skipUnless,
  submitLine,
  TEST_IMAGE,
  Tmux,
  waitFor,
  waitIdeConnected,
  which,
} from '@ide-companion/testkit';
import { SERVE_IDE_INFO } from '@ide-companion/terminal';
import { EDITED, editAndAcceptInServe, holds, ideCompanion, reportedRequest, START_TIMEOUT_MS, startServe, STEP_TIMEOUT_MS } from './support/remoteServe.js';

const cli = findGeminiCli();
const problem = cli === undefined ? undefined : podmanProblem();
const skip =
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux') ||
  skipUnless(problem === undefined, `podman (${problem})`, 'apt-get install podman runc mmdebstrap; bash scripts/build-container-image.sh');

/** Mounts that put the host's node and the pinned CLI into the image (a user's image has them installed). */
function nodeAndCliMounts(): string[] {
  return ['-v', `${process.execPath}:/usr/local/bin/node:ro`, '-v', `${geminiCliDir()}:/opt/gemini-cli:ro`];
}
const GEMINI_IN_IMAGE = `/opt/gemini-cli/node_modules/${path.relative(path.join(geminiCliDir(), 'node_modules'), cli?.geminiBin ?? '')}`;

test(
  'gemini in a --network=none container, the project at /workspaces/NAME: connected to serve, context in container paths, an edited accept lands byte for byte on the host',
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    const host = await startServe(t);
    const name = `ide-companion-test-${process.pid}-${Date.now()}`;
    const cliTmp = path.join(host.dir.path, 'container-tmp');
    fs.mkdirSync(cliTmp);
    const gemini = new Tmux(200, 50);
    t.after(async () => {
      await gemini.stop();
      removeContainer(name);
    });
    // A saved file becomes serve's context (its watcher reports it long before gemini has started).
    fs.writeFileSync(path.join(host.dir.workspace, 'seen.txt'), 'seen\n');

    // What the user types: podman run $(ide-companion container --podman) IMAGE gemini. The words are split as the shell splits $(...).
    const words = ideCompanion(host, ['container', '--podman']).split(/\s+/);
    assert.ok(words.includes(`${host.dir.workspace}:/workspaces/ws`), words.join(' '));
    const command = [
      'podman',
      ...PODMAN_GLOBAL_FLAGS,
      'run',
      '-it',
      ...PODMAN_RUN_FLAGS,
      '--name',
      name,
      ...words,
      ...nodeAndCliMounts(),
      '-v',
      `${host.dir.home}:/root`,
      '-v',
      `${host.dir.fakeResponses}:/turns.jsonl:ro`,
      // The container's /tmp, to read the CLI's error report from here (the discovery file is mounted inside it).
      '-v',
      `${cliTmp}:/tmp`,
      '-e',
      'HOME=/root',
      '-e',
      'GEMINI_API_KEY=dummy',
      TEST_IMAGE,
      'node',
      GEMINI_IN_IMAGE,
      '--fake-responses',
      '/turns.jsonl',
      '--model',
      'gemini-2.5-flash',
      '--approval-mode',
      'default',
    ];
    gemini.start(shellCommand(command), { cwd: host.dir.path });
    await gemini.waitForText('Type your message', START_TIMEOUT_MS);
    const { status, screen } = await waitIdeConnected(gemini, START_TIMEOUT_MS);
    assert.equal(status, `Connected to ${SERVE_IDE_INFO.displayName}`);
    // /ide status lists the open files: the CLI knows them by their container paths only.
    // It lists the open files it kept: those that exist on its disk, by their container paths.
    assert.match(screen, /- seen\.txt \(active\)/);

    await submitLine(gemini, 'please write a.txt');
    await editAndAcceptInServe(host);
    await holds(host.file, () => fs.readFileSync(host.file, 'utf8'), EDITED);
    await gemini.waitForText(/Done\./, STEP_TIMEOUT_MS);
    // One more prompt and the scripted turns are spent: the CLI reports the request it could not
    // send, the whole conversation with the IDE context the model received, in its /tmp (mounted here).
    await submitLine(gemini, 'thanks');
    const request = await modelRequest(cliTmp);
    assert.match(request, /\/workspaces\/ws\/seen\.txt/, 'the model saw the open file by its container path');
    assert.ok(!request.includes(host.dir.workspace), 'no host path reached the model');
  },
);

/** The request to the model the CLI reported in its /tmp (`dir` here). */
function modelRequest(dir: string): Promise<string> {
  return waitFor(
    () => reportedRequest(fs.readdirSync(dir), (name) => fs.readFileSync(path.join(dir, name), 'utf8')),
    'the CLI to report its request to the model',
    STEP_TIMEOUT_MS,
  );
}

/**
 * `podman` for `gemini --sandbox`, on PATH ahead of the real one. The CLI always adds
 * `--add-host host.docker.internal:host-gateway`, which Podman before 5 refuses ("invalid
 * IP address in add-host"): with Debian 12's podman 4.3, `gemini --sandbox` cannot start at
 * all, with or without a companion. This shim drops that one option (the host gateway serves
 * only the port path, unused here) and adds the runtime flags this machine needs; the real
 * podman runs everything else as the CLI asked (docs/remote.md).
 */
function podmanShim(dir: string): string {
  const bin = path.join(dir, 'shim-bin');
  fs.mkdirSync(bin);
  const real = which('podman')!;
  fs.writeFileSync(
    path.join(bin, 'podman'),
    [
      '#!/bin/sh',
      'skip=0',
      'for arg; do',
      '  shift',
      '  if [ "$skip" = 1 ]; then skip=0; [ "$arg" = "host.docker.internal:host-gateway" ] && continue; set -- "$@" --add-host; fi',
      '  if [ "$arg" = "--add-host" ]; then skip=1; continue; fi',
      '  set -- "$@" "$arg"',
      'done',
      `exec ${real} ${PODMAN_GLOBAL_FLAGS.join(' ')} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return bin;
}

test(
  "gemini --sandbox (Podman, no network) with `ide-companion sandbox`'s exports: connected to serve, an edited accept lands byte for byte",
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    const host = await startServe(t);
    const gemini = new Tmux(200, 50);
    t.after(() => gemini.stop());
    const exports = ideCompanion(host, ['sandbox', '--json']);
    const { SANDBOX_MOUNTS, SANDBOX_ENV } = JSON.parse(exports) as { SANDBOX_MOUNTS: string; SANDBOX_ENV: string };
    assert.match(SANDBOX_MOUNTS, /:\/run\/ide-companion:ro,.*:\/opt\/ide-companion\/connect\.mjs:ro,.*:\/tmp\/gemini\/ide\/gemini-ide-server-1-1\.json:ro$/);
    // The image stands in for Google's: gemini and node come in as mounts, as they are installed there.
    const launcher = path.join(host.dir.path, 'gemini-launcher');
    fs.writeFileSync(launcher, `#!/bin/sh\nexec node ${GEMINI_IN_IMAGE} "$@"\n`, { mode: 0o755 });
    const testMounts = [
      `${process.execPath}:/usr/local/bin/node:ro`,
      `${geminiCliDir()}:/opt/gemini-cli:ro`,
      `${launcher}:/usr/local/bin/gemini:ro`,
      `${host.dir.fakeResponses}:${host.dir.fakeResponses}:ro`,
    ];
    const env = {
      HOME: host.dir.home,
      TMPDIR: host.dir.tmpdir,
      GEMINI_API_KEY: 'dummy',
      PATH: `${podmanShim(host.dir.path)}:${process.env['PATH'] ?? ''}`,
      GEMINI_SANDBOX: 'podman',
      GEMINI_SANDBOX_IMAGE: TEST_IMAGE,
      SANDBOX_SET_UID_GID: 'false',
      // The test's own: no network at all, so the socket is the only way to the editor.
      SANDBOX_FLAGS: '--network=none',
      SANDBOX_MOUNTS: [SANDBOX_MOUNTS, ...testMounts].join(','),
      SANDBOX_ENV,
    };
    const argv = [process.execPath, cli!.geminiBin, '--fake-responses', host.dir.fakeResponses, '--model', 'gemini-2.5-flash', '--approval-mode', 'default'];
    gemini.start(shellCommand(argv, env, [...STRAY_IDE_ENV, ...HEADLESS_TRIGGER_ENV]), { cwd: host.dir.workspace });
    await gemini.waitForText('Type your message', START_TIMEOUT_MS);
    // The footer's sandbox column says "current process" only inside the sandbox (SANDBOX is set there).
    assert.match(gemini.screen(), /current process/, 'gemini runs inside its sandbox');
    const { status } = await waitIdeConnected(gemini, START_TIMEOUT_MS);
    assert.equal(status, `Connected to ${SERVE_IDE_INFO.displayName}`);
    await submitLine(gemini, 'please write a.txt');
    await editAndAcceptInServe(host);
    await holds(host.file, () => fs.readFileSync(host.file, 'utf8'), EDITED);
  },
);
