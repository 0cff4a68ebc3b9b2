/**
 * The remote flows of docs/remote.md, end to end with the real `gemini`
 * 0.61.0, for any editor end on this machine (an `EditorHost`: serve,
 * Neovim...): gemini in a `--network=none` Podman container started with
 * `ide-companion container`'s words, in its own `--sandbox` with
 * `ide-companion sandbox`'s exports, and in an `ide-companion ssh` shell on a
 * remote that cannot reach this loopback. Each asserts what the user sees: /ide
 * status connected to the editor, the model given the editor's context in the
 * CLI's own paths, and a proposed write reviewed in the editor here, accepted
 * with the user's edits, landing byte for byte where that CLI writes.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import { skipUnless, which } from './external.js';
import { findGeminiCli, geminiCliDir, repoRoot } from './geminiCli.js';
import { HEADLESS_TRIGGER_ENV, makeGeminiHome, shellCommand, STRAY_IDE_ENV } from './geminiHome.js';
import { submitLine, waitIdeConnected } from './geminiTui.js';
import { PODMAN_GLOBAL_FLAGS, PODMAN_RUN_FLAGS, podmanProblem, removeContainer, TEST_IMAGE } from './podman.js';
import { SSH_TEST_USER, sshdProblem, startTestSshd } from './sshd.js';
import { Tmux } from './tmux.js';
import { sleep, waitFor } from './wait.js';

export const IDE_COMPANION_BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
export const REMOTE_START_TIMEOUT_MS = 120_000;
export const REMOTE_STEP_TIMEOUT_MS = 60_000;
export const ORIGINAL_TEXT = 'original line\n';
export const PROPOSED_TEXT = 'line from the model\n';
/** The remote checkout's a.txt and b.txt in the SSH flow: not this machine's copy, which the review must not show. */
export const REMOTE_ORIGINAL_TEXT = 'remote original line\n';

/** What the review must show when the file the agent writes is elsewhere (the SSH flow): its name and its content. */
export interface ExpectedReview {
  /** The file as the editor names it (`HOST:PATH` on the remote). */
  shownPath: string;
  /** The left side: that file's content there. */
  base: string;
}

/**
 * The `skip` options of the flows (node:test's): each flow needs the pinned CLI and tmux, and
 * Podman with the test image or sshd in a namespace; `base` is the end's own reason to skip.
 */
export function remoteFlowSkips(base: string | false = false): { podman: string | false; compose: string | false; ssh: string | false } {
  const common =
    base ||
    skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
    skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux');
  if (common) return { podman: common, compose: common, ssh: common };
  const podman = podmanProblem();
  const sshd = sshdProblem();
  const podmanSkip = skipUnless(!podman, `podman (${podman})`, 'apt-get install podman runc mmdebstrap; bash scripts/build-container-image.sh');
  return {
    podman: podmanSkip,
    compose: podmanSkip || skipUnless(which('podman-compose') !== undefined, 'podman-compose (Debian 12: 1.0.3)', 'apt-get install podman-compose'),
    ssh: skipUnless(!sshd, `sshd in a network namespace (${sshd})`, 'apt-get install openssh-server socat iproute2; run as root'),
  };
}

/** An editor end on this machine serving a project that holds a.txt (ORIGINAL_TEXT) and seen.txt. */
export interface EditorHost {
  /** What /ide status names. */
  displayName: string;
  /** The project, a real path, and the TMPDIR of its companion (its discovery file). */
  workspace: string;
  tmpdir: string;
  /** A private folder for the flow's files; removed by the host's teardown. */
  scratch: string;
  /** Makes seen.txt (in the project) the editor's active file (the flows wait until the context shows it). */
  focusSeen(): Promise<void>;
  /**
   * The proposal for `file` is shown in the editor; the user edits it and accepts. Returns the text accepted.
   * `expect`: the review names that path and its left side holds that base (asserted by the end).
   */
  editAndAccept(file: string, expect?: ExpectedReview): Promise<string>;
  /** The editor's screen, for failures. */
  describe(): string;
  /**
   * Stops the editor and starts it again on the same project (issue 29): the
   * flows then go on with the same gemini process, its next diff in the new
   * editor. Ends without it do the first round only.
   */
  restart?(): Promise<void>;
  /** Resolves once the editor says no CLI is connected (the faults of docs/reliability.md); ends without it skip those checks. */
  noSession?(): Promise<void>;
}

/** The file of the round after the editor's restart, and the model's last words then. */
export const AGAIN_FILE = 'b.txt';
const AGAIN_DONE = 'Done again.';

/** The scripted model turns: write a.txt (or `target`), then say Done; with `again`, then write b.txt and say Done again. */
export function writeTurns(file: string, again = false, target = 'a.txt'): string {
  const turn = (parts: unknown[]) =>
    JSON.stringify({
      method: 'generateContentStream',
      response: [
        {
          candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        },
      ],
    });
  fs.writeFileSync(
    file,
    [
      turn([{ functionCall: { name: 'write_file', args: { file_path: target, content: PROPOSED_TEXT } } }]),
      turn([{ text: 'Done.' }]),
      ...(again
        ? [turn([{ functionCall: { name: 'write_file', args: { file_path: AGAIN_FILE, content: PROPOSED_TEXT } } }]), turn([{ text: AGAIN_DONE }])]
        : []),
    ].join('\n') + '\n',
  );
  return file;
}

/** `ide-companion ARGS` run in the project as the user would, with the companion's TMPDIR; its stdout. */
export function runIdeCompanion(host: EditorHost, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, [IDE_COMPANION_BIN, ...args], {
    cwd: host.workspace,
    env: { ...process.env, TMPDIR: host.tmpdir, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 0, `ide-companion ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The editor's context, as `ide-companion context` reads it here, names seen.txt first. */
async function focusSeen(host: EditorHost): Promise<void> {
  await host.focusSeen();
  const seen = path.join(host.workspace, 'seen.txt');
  await waitFor(
    () => {
      const r = spawnSync(process.execPath, [IDE_COMPANION_BIN, 'context', '--json', '--timeout', '5000'], {
        cwd: host.workspace,
        env: { ...process.env, TMPDIR: host.tmpdir },
        encoding: 'utf8',
        timeout: 20_000,
      });
      if (r.status !== 0) return undefined;
      const context = JSON.parse(r.stdout) as { workspaceState?: { openFiles?: Array<{ path: string }> } };
      return context.workspaceState?.openFiles?.[0]?.path === seen || undefined;
    },
    'seen.txt to be the active file of the context',
    REMOTE_STEP_TIMEOUT_MS,
    200,
  );
}

async function holds(what: string, read: () => string, expected: string): Promise<void> {
  let last = '';
  await waitFor(() => (last = read()) === expected, `${what} to hold ${JSON.stringify(expected)}`, REMOTE_STEP_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; it holds ${JSON.stringify(last)}`);
  });
}

/** The request to the model that the CLI reported (gemini-client-error-*.json, written when the scripted turns are spent). */
function reportedRequest(files: readonly string[], read: (name: string) => string): string | undefined {
  const report = files.find((f) => f.startsWith('gemini-client-error-') && f.endsWith('.json'));
  if (!report) return undefined;
  const message = (JSON.parse(read(report)) as { error: { message: string } }).error.message;
  const marker = 'got request:\n';
  return message.includes(marker) ? message.slice(message.indexOf(marker) + marker.length) : undefined;
}

/**
 * The whole conversation: connected, a write reviewed in the editor; then, where the CLI's /tmp can
 * be read (`report`), the request that shows the context the model had.
 */
async function converse(
  host: EditorHost,
  gemini: Tmux,
  at: {
    file: string;
    read: () => string;
    report?: { list: () => string[]; read: (name: string) => string };
    /** The round after the editor's restart (when the host can restart): b.txt where the CLI writes it. */
    again?: { file: string; read: () => string };
    /** What each round's review must show, by the file's name (the SSH flow: the remote file). */
    expect?: (name: string) => ExpectedReview;
  },
): Promise<string | undefined> {
  const fail = (err: Error) => {
    throw new Error(`${err.message}\n--- gemini ---\n${gemini.screen()}\n--- editor ---\n${host.describe()}`);
  };
  try {
    await gemini.waitForText('Type your message', REMOTE_START_TIMEOUT_MS);
    const { status } = await waitIdeConnected(gemini, REMOTE_START_TIMEOUT_MS);
    assert.equal(status, `Connected to ${host.displayName}`);
    await submitLine(gemini, 'please write a.txt');
    const accepted = await host.editAndAccept(path.join(host.workspace, 'a.txt'), at.expect?.('a.txt'));
    await holds(at.file, at.read, accepted);
    await gemini.waitForText(/Done\./, REMOTE_STEP_TIMEOUT_MS);
    if (at.again && host.restart) {
      // The editor restarts; the same gemini process (its relay) goes on with the new one.
      await host.restart();
      await sleep(1_000);
      await submitLine(gemini, `please write ${AGAIN_FILE}`);
      const acceptedAgain = await host.editAndAccept(path.join(host.workspace, AGAIN_FILE), at.expect?.(AGAIN_FILE));
      await holds(at.again.file, at.again.read, acceptedAgain);
      await gemini.waitForText(AGAIN_DONE, REMOTE_STEP_TIMEOUT_MS);
    }
    const report = at.report;
    if (!report) return undefined;
    await submitLine(gemini, 'thanks');
    return await waitFor(() => reportedRequest(report.list(), report.read), 'the CLI to report its request to the model', REMOTE_STEP_TIMEOUT_MS);
  } catch (err) {
    return fail(err as Error);
  }
}

function nodeAndCliMounts(): { mounts: Array<[string, string]>; geminiJs: string } {
  const cli = findGeminiCli()!;
  const geminiJs = `/opt/gemini-cli/${path.relative(geminiCliDir(), cli.geminiBin)}`;
  return {
    mounts: [
      [process.execPath, '/usr/local/bin/node'],
      [geminiCliDir(), '/opt/gemini-cli'],
    ],
    geminiJs,
  };
}

const DOC = path.join(repoRoot, 'docs', 'remote.md');

/** The scripted gemini as a `gemini` command in the container (the image stands in for one with gemini installed). */
function geminiLauncher(host: EditorHost, geminiJs: string): string {
  const launcher = path.join(host.scratch, 'gemini-in-container');
  fs.writeFileSync(launcher, `#!/bin/sh\nexec node ${geminiJs} --fake-responses /turns.jsonl --model gemini-2.5-flash --approval-mode default "$@"\n`, {
    mode: 0o755,
  });
  return launcher;
}

/**
 * A one-time command of docs/remote.md, run as the doc says: by sh, in the project, with `ide-companion` on PATH and
 * the editor's TMPDIR. Returns the stable folder it wrote into (as `container --json` names it).
 */
function runOnce(host: EditorHost, command: string, at: string): string {
  const bin = path.join(host.scratch, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'ide-companion'), `#!/bin/sh\nexec ${process.execPath} ${IDE_COMPANION_BIN} "$@"\n`, { mode: 0o755 });
  const r = spawnSync('sh', ['-c', command], {
    cwd: host.workspace,
    env: { ...process.env, TMPDIR: host.tmpdir, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 0, `${command}: ${r.stderr}`);
  const { socket } = JSON.parse(runIdeCompanion(host, ['container', '--podman', '--at', at, '--json'])) as { socket: string };
  return path.dirname(socket);
}

/**
 * A folder holding `ide-companion` -> the stable folder, to be XDG_RUNTIME_DIR for what reads
 * `${XDG_RUNTIME_DIR}/ide-companion` (the compose file, devcontainer.json's `${localEnv:XDG_RUNTIME_DIR}`): the
 * editor's stable folder is under its TMPDIR here (no XDG_RUNTIME_DIR), so the doc's words reach it as written.
 */
function runtimeDirFor(host: EditorHost, stable: string): string {
  const xdg = path.join(host.scratch, 'xdg');
  fs.mkdirSync(xdg, { recursive: true });
  if (path.join(xdg, 'ide-companion') !== stable) fs.symlinkSync(stable, path.join(xdg, 'ide-companion'));
  return xdg;
}

/** How a container flow starts gemini and stops its container, and what `doctor` there is run with. */
interface ContainerLaunch {
  /** `podman run` words giving a container the same mounts and working folder, for `doctor` there. */
  words: string[];
  /** Starts gemini in the terminal. */
  start(gemini: Tmux): void;
  /** Stops the container (the fault of docs/reliability.md). */
  stop(): void;
}

function stopContainer(nameOrId: string): void {
  const stopped = spawnSync('podman', [...PODMAN_GLOBAL_FLAGS, 'stop', '-t', '1', nameOrId], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(stopped.status, 0, stopped.stderr);
}

/**
 * `podman run` of the real gemini (scripted turns, diffs reviewed in the IDE) in a `--network=none` container
 * given `words` (`ide-companion container --podman`'s), with the test's own mounts: this machine's node and CLI,
 * a HOME of the test's (makeGeminiHome) and, with `cliTmp`, the container's /tmp (the discovery folder is
 * mounted inside it).
 */
export function containerGeminiArgv(options: { words: readonly string[]; name: string; home: string; turns: string; cliTmp?: string }): string[] {
  const { mounts, geminiJs } = nodeAndCliMounts();
  return [
    'podman',
    ...PODMAN_GLOBAL_FLAGS,
    'run',
    '-it',
    ...PODMAN_RUN_FLAGS,
    '--name',
    options.name,
    ...options.words,
    ...mounts.flatMap(([from, to]) => ['-v', `${from}:${to}:ro`]),
    '-v',
    `${options.home}:/root`,
    '-v',
    `${options.turns}:/turns.jsonl:ro`,
    ...(options.cliTmp ? ['-v', `${options.cliTmp}:/tmp`] : []),
    '-e',
    'HOME=/root',
    '-e',
    'GEMINI_API_KEY=dummy',
    TEST_IMAGE,
    'node',
    geminiJs,
    '--fake-responses',
    '/turns.jsonl',
    '--model',
    'gemini-2.5-flash',
    '--approval-mode',
    'default',
  ];
}

/** The command line `ide-companion container --podman` prints, with the test's own mounts. */
function commandLaunch(t: TestContext, host: EditorHost, name: string, cliTmp: string, turns: string): ContainerLaunch {
  const words = runIdeCompanion(host, ['container', '--podman']).split(/\s+/);
  assert.ok(words.includes(`${host.workspace}:/workspaces/${name}`), words.join(' '));
  const containerName = `ide-companion-test-${process.pid}-${Date.now()}`;
  t.after(() => removeContainer(containerName));
  const home = makeGeminiHome(path.join(host.scratch, 'container-home'));
  const command = containerGeminiArgv({ words, name: containerName, home, turns, cliTmp });
  return {
    words,
    start: (gemini) => gemini.start(shellCommand(command), { cwd: host.scratch }),
    stop: () => stopContainer(containerName),
  };
}

/**
 * The compose service of docs/remote.md run by podman-compose (Debian 12's
 * 1.0.3) as the doc says: its YAML written as `compose.yaml` in the project,
 * the one-time command first, then the doc's `podman-compose run …` line. The
 * test's own, beside what the doc says: `IMAGE` is the test image; an override
 * file (`-f`, merged by podman-compose) adds `network_mode: none`, this
 * machine's ulimits, the mounted node and CLI with a `gemini` command, the
 * scripted turns, the CLI's /tmp (its report) and the dummy key; `-p` names
 * the project per run; `--podman-path` is a podman that adds this machine's
 * runtime flags and drops the project network podman-compose 1.0.3 adds to
 * every container even with `network_mode: none` (podman refuses the two
 * together). `~/.gemini` is the test's HOME's, `${XDG_RUNTIME_DIR}` the
 * folder whose `ide-companion` is the editor's stable folder.
 */
function composeLaunch(t: TestContext, host: EditorHost, name: string, cliTmp: string, turns: string): ContainerLaunch {
  const doc = fs.readFileSync(DOC, 'utf8');
  const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(yaml, 'the compose service in docs/remote.md');
  const once = /^ {4}(ide-companion container [^\n]*? > \/dev\/null)$/m.exec(doc)?.[1];
  assert.ok(once, 'the one-time command in docs/remote.md');
  const run = /^ {4}podman-compose (run [^\n]*)$/m.exec(doc)?.[1]?.split(' ');
  assert.ok(run, 'the podman-compose line in docs/remote.md');
  assert.equal(name, 'proj', 'the project is named as in the doc');
  const workdir = /^\s+working_dir: (\S+)$/m.exec(yaml)?.[1];
  assert.ok(workdir);
  const stable = runOnce(host, once, workdir);
  const xdg = runtimeDirFor(host, stable);
  const home = makeGeminiHome(path.join(host.scratch, 'compose-home'));
  const composeFile = path.join(host.workspace, 'compose.yaml');
  assert.match(yaml, /^\s+image: IMAGE$/m);
  fs.writeFileSync(composeFile, yaml.replace(/^(\s+image:) IMAGE$/m, `$1 ${TEST_IMAGE}`));
  const { mounts, geminiJs } = nodeAndCliMounts();
  const override = path.join(host.scratch, 'compose.test.yaml');
  // JSON is YAML.
  const service = {
    network_mode: 'none',
    ulimits: { nofile: 20000, nproc: 4096 },
    environment: ['GEMINI_API_KEY=dummy'],
    volumes: [
      ...mounts.map(([from, to]) => `${from}:${to}:ro`),
      `${geminiLauncher(host, geminiJs)}:/usr/local/bin/gemini:ro`,
      `${turns}:/turns.jsonl:ro`,
      `${cliTmp}:/tmp`,
    ],
  };
  fs.writeFileSync(override, JSON.stringify({ services: { gemini: service } }));
  const podman = path.join(host.scratch, 'compose-podman');
  fs.writeFileSync(
    podman,
    `#!/bin/sh
# This machine's runtime flags; without the network podman-compose 1.0.3 adds beside network_mode: none.
none=
for a in "$@"; do [ "$a" = none ] && none=1; done
n=$#
while [ "$n" -gt 0 ]; do
  a=$1; shift; n=$((n - 1))
  if [ -n "$none" ] && { [ "$a" = --net ] || [ "$a" = --network-alias ]; }; then shift; n=$((n - 1)); continue; fi
  set -- "$@" "$a"
done
exec ${which('podman')!} ${PODMAN_GLOBAL_FLAGS.join(' ')} "$@"
`,
    { mode: 0o755 },
  );
  const project = `idecompaniontest${process.pid}x${Date.now()}`;
  const containers = () =>
    spawnSync('podman', [...PODMAN_GLOBAL_FLAGS, 'ps', '-aq', '--filter', `label=io.podman.compose.project=${project}`], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
  t.after(() => {
    for (const id of containers()) removeContainer(id);
    spawnSync('podman', [...PODMAN_GLOBAL_FLAGS, 'network', 'rm', '-f', `${project}_default`], { stdio: 'ignore', timeout: 30_000 });
    fs.rmSync(composeFile, { force: true });
  });
  const argv = ['podman-compose', '--podman-path', podman, '-p', project, '-f', composeFile, '-f', override, ...run];
  // For doctor: the service's volumes and working folder as podman -v words.
  const words = ['-w', workdir];
  for (const [, volume] of yaml.matchAll(/^\s+- (\S+:\S+)$/gm)) {
    const [from, ...rest] = volume!.split(':');
    const source =
      from === '.'
        ? host.workspace
        : from === '~/.gemini'
          ? path.join(home, '.gemini')
          : from!.replace('${XDG_RUNTIME_DIR}', xdg).replace('${PWD}', host.workspace);
    words.push('-v', [source, ...rest].join(':'));
  }
  return {
    words,
    start: (gemini) => gemini.start(shellCommand(argv, { XDG_RUNTIME_DIR: xdg, HOME: home }), { cwd: host.workspace }),
    stop: () => {
      const running = containers();
      assert.equal(running.length, 1, `one container of the compose project: ${running.join(' ')}`);
      stopContainer(running[0]!);
    },
  };
}

/**
 * The devcontainer.json of docs/remote.md, turned into what the devcontainer
 * CLI (not installed here) does with it for Podman:
 *   - `initializeCommand`: run by sh on this machine, in the project, before the container;
 *   - the container: `podman run -d` with `workspaceMount` (default `source=${localWorkspaceFolder},
 *     target=/workspaces/${localWorkspaceFolderBasename},type=bind`) and each of `mounts` as `--mount`,
 *     `containerEnv` as `-e`, `runArgs` as they are, then `--entrypoint /bin/sh IMAGE -c <a loop that
 *     waits>` (`overrideCommand`'s default: the container outlives any one command);
 *   - gemini in it: `podman exec -it -w workspaceFolder` (default `/workspaces/${localWorkspaceFolderBasename}`)
 *     with `remoteEnv` as `-e`, which is what `devcontainer exec … gemini` and the editor's terminal do;
 *   - `${localEnv:NAME}`, `${localWorkspaceFolder}`, `${localWorkspaceFolderBasename}` and
 *     `${containerWorkspaceFolder}` replaced first, in every string; any other `${…}` fails the test.
 * The test's own, added to the doc's: `IMAGE` is the test image, `runArgs` gets `--network=none` and this
 * machine's ulimits, `mounts` the node and CLI with a `gemini` command, the scripted turns and the CLI's
 * /tmp; `${localEnv:HOME}` is the test's HOME, `${localEnv:XDG_RUNTIME_DIR}` the folder whose
 * `ide-companion` is the editor's stable folder, `${localEnv:GEMINI_API_KEY}` a dummy.
 */
function devcontainerLaunch(t: TestContext, host: EditorHost, name: string, cliTmp: string, turns: string): ContainerLaunch {
  const doc = fs.readFileSync(DOC, 'utf8');
  const json = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(json, 'the devcontainer.json in docs/remote.md');
  const config = JSON.parse(json) as {
    image: string;
    initializeCommand?: string;
    workspaceMount?: string;
    workspaceFolder?: string;
    mounts?: string[];
    runArgs?: string[];
    containerEnv?: Record<string, string>;
    remoteEnv?: Record<string, string>;
  };
  assert.equal(config.image, 'IMAGE');
  assert.ok(config.initializeCommand, 'the devcontainer.json writes the relay and discovery file with initializeCommand');
  const home = makeGeminiHome(path.join(host.scratch, 'devcontainer-home'));
  const { mounts, geminiJs } = nodeAndCliMounts();
  const folder = config.workspaceFolder ?? `/workspaces/${name}`;
  const local: Record<string, string> = { HOME: home, GEMINI_API_KEY: 'dummy' };
  const variables: Record<string, string> = {
    localWorkspaceFolder: host.workspace,
    localWorkspaceFolderBasename: name,
    containerWorkspaceFolder: folder,
    containerWorkspaceFolderBasename: path.posix.basename(folder),
  };
  const expand = (s: string): string =>
    s.replace(/\$\{([^}]*)\}/g, (_m, v: string) => {
      const value = v.startsWith('localEnv:') ? local[v.slice('localEnv:'.length)] : variables[v];
      assert.ok(value !== undefined, `devcontainer.json's \${${v}}: not a variable the test sets`);
      return value;
    });
  local['XDG_RUNTIME_DIR'] = runtimeDirFor(host, runOnce(host, expand(config.initializeCommand), folder));
  const workspaceMount = expand(config.workspaceMount ?? 'source=${localWorkspaceFolder},target=/workspaces/${localWorkspaceFolderBasename},type=bind');
  const mountWords = [workspaceMount, ...(config.mounts ?? []).map(expand)].flatMap((m) => ['--mount', m]);
  const testMounts = [
    ...mounts.map(([from, to]) => `source=${from},target=${to},type=bind,readonly`),
    `source=${geminiLauncher(host, geminiJs)},target=/usr/local/bin/gemini,type=bind,readonly`,
    `source=${turns},target=/turns.jsonl,type=bind,readonly`,
    `source=${cliTmp},target=/tmp,type=bind`,
  ];
  const env = (vars: Record<string, string> | undefined) => Object.entries(vars ?? {}).flatMap(([k, v]) => ['-e', `${k}=${expand(v)}`]);
  const runArgs = [...(config.runArgs ?? []).map(expand), '--network=none', '--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'];
  const containerName = `ide-companion-test-dc-${process.pid}-${Date.now()}`;
  t.after(() => removeContainer(containerName));
  const started = spawnSync(
    'podman',
    [
      ...PODMAN_GLOBAL_FLAGS,
      'run',
      '-d',
      '--name',
      containerName,
      ...mountWords,
      ...testMounts.flatMap((m) => ['--mount', m]),
      ...env(config.containerEnv),
      ...runArgs,
      '--entrypoint',
      '/bin/sh',
      TEST_IMAGE,
      '-c',
      'echo Container started; trap "exit 0" 15; while sleep 1 & wait $!; do :; done',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(started.status, 0, `the dev container: ${started.stderr}`);
  const exec = ['podman', ...PODMAN_GLOBAL_FLAGS, 'exec', '-it', '-w', folder, ...env(config.remoteEnv), containerName, 'gemini'];
  return {
    words: [...mountWords, '-w', folder],
    start: (gemini) => gemini.start(shellCommand(exec), { cwd: host.scratch }),
    stop: () => stopContainer(containerName),
  };
}

/**
 * gemini in a `--network=none` container, the project at /workspaces/NAME:
 * started with `ide-companion container --podman`'s words (split as a shell
 * splits `$(...)`), from the compose service of docs/remote.md run by
 * podman-compose, or from its devcontainer.json as the devcontainer CLI would
 * run it. The model sees container paths, the accepted bytes land in the host
 * file through the mount.
 */
export async function containerFlow(t: TestContext, host: EditorHost, from: 'command' | 'compose' | 'devcontainer' = 'command'): Promise<void> {
  await focusSeen(host);
  const name = path.basename(host.workspace);
  const projectThere = `/workspaces/${name}`;
  const cliTmp = path.join(host.scratch, 'container-tmp');
  const turns = writeTurns(path.join(host.scratch, 'turns.jsonl'), host.restart !== undefined);
  fs.writeFileSync(path.join(host.workspace, AGAIN_FILE), ORIGINAL_TEXT);
  fs.mkdirSync(cliTmp);
  const gemini = new Tmux(200, 50);
  t.after(() => gemini.stop());
  const launch = (from === 'compose' ? composeLaunch : from === 'devcontainer' ? devcontainerLaunch : commandLaunch)(t, host, name, cliTmp, turns);
  const words = launch.words;
  const { mounts } = nodeAndCliMounts();
  // doctor there: with the words, it would connect through the relay; without them, it says to use them.
  const doctor = (extra: string[]) =>
    spawnSync(
      'podman',
      [
        ...PODMAN_GLOBAL_FLAGS,
        'run',
        ...PODMAN_RUN_FLAGS,
        ...extra,
        '-v',
        `${repoRoot}:${repoRoot}:ro`,
        ...mounts.flatMap(([from, to]) => ['-v', `${from}:${to}:ro`]),
        TEST_IMAGE,
        'node',
        IDE_COMPANION_BIN,
        'doctor',
      ],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
  const connected = doctor(words);
  assert.equal(connected.status, 0, `doctor in the container:\n${connected.stdout}${connected.stderr}`);
  assert.ok(connected.stdout.includes(`would connect to ${host.displayName}.`), connected.stdout);
  assert.doesNotMatch(connected.stdout, /^✖/m, connected.stdout);
  assert.match(
    connected.stdout,
    /through the relay, over stdio: node \/run\/ide-companion\/connect\.mjs --socket \/run\/ide-companion\/[0-9a-f]{16}\.sock --reconnect/,
  );
  const lost = doctor(['-w', '/tmp']);
  assert.equal(lost.status, 1, lost.stdout);
  assert.match(lost.stdout, /in a container \(\/run\/\.containerenv\), and no companion serves \/tmp here/);
  assert.match(lost.stdout, /podman run --rm -it \$\(ide-companion container --podman\) IMAGE gemini/);

  launch.start(gemini);
  const file = path.join(host.workspace, 'a.txt');
  const againFile = path.join(host.workspace, AGAIN_FILE);
  const request = await converse(host, gemini, {
    file,
    read: () => fs.readFileSync(file, 'utf8'),
    report: { list: () => fs.readdirSync(cliTmp), read: (n) => fs.readFileSync(path.join(cliTmp, n), 'utf8') },
    again: { file: againFile, read: () => fs.readFileSync(againFile, 'utf8') },
  });
  assert.ok(request);
  assert.match(request, new RegExp(`${projectThere}/seen\\.txt`), 'the model saw the open file by its container path');
  assert.ok(!request.includes(host.workspace), 'no host path reached the model');
  if (host.restart) {
    // doctor there after the restart: the same words, the new editor.
    const afterRestart = doctor(words);
    assert.equal(afterRestart.status, 0, `doctor in the container after the restart:\n${afterRestart.stdout}${afterRestart.stderr}`);
    assert.ok(afterRestart.stdout.includes(`would connect to ${host.displayName}.`), afterRestart.stdout);
  }
  if (host.noSession) {
    // The container stopped under a connected gemini: the relay goes with it, the editor ends that session.
    launch.stop();
    await host.noSession();
  }
}

/**
 * A folder holding a `podman` of the test's that adds the runtime flags this
 * machine needs (PODMAN_GLOBAL_FLAGS) and runs the real one: first on PATH
 * when `ide-companion sandbox` runs, so the product's host-gateway shim
 * (docs/remote.md) runs it in turn. The workaround is the product's, not this.
 */
function machinePodman(dir: string): string {
  const bin = path.join(dir, 'machine-bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'podman'), `#!/bin/sh\nexec ${which('podman')!} ${PODMAN_GLOBAL_FLAGS.join(' ')} "$@"\n`, { mode: 0o755 });
  return bin;
}

/**
 * `gemini --sandbox` (Podman, the test image standing in for Google's, no
 * network) with `ide-companion sandbox`'s variables: the CLI runs inside its
 * sandbox (its footer says "current process") and the project is at the same path.
 */
export async function sandboxFlow(t: TestContext, host: EditorHost): Promise<void> {
  await focusSeen(host);
  const machinePath = `${machinePodman(host.scratch)}:${process.env['PATH'] ?? ''}`;
  const exported = JSON.parse(runIdeCompanion(host, ['sandbox', '--podman', '--json'], { PATH: machinePath })) as {
    SANDBOX_MOUNTS: string;
    SANDBOX_ENV: string;
    GEMINI_SANDBOX: string;
    PATH?: string;
  };
  const { SANDBOX_MOUNTS, SANDBOX_ENV } = exported;
  assert.match(SANDBOX_MOUNTS, /:\/run\/ide-companion:ro,.*:\/opt\/ide-companion\/connect\.mjs:ro,.*:\/tmp\/gemini\/ide\/gemini-ide-server-1-1\.json:ro$/);
  const { mounts, geminiJs } = nodeAndCliMounts();
  const launcher = path.join(host.scratch, 'gemini-launcher');
  fs.writeFileSync(launcher, `#!/bin/sh\nexec node ${geminiJs} "$@"\n`, { mode: 0o755 });
  const turns = writeTurns(path.join(host.scratch, 'turns.jsonl'), host.restart !== undefined);
  fs.writeFileSync(path.join(host.workspace, AGAIN_FILE), ORIGINAL_TEXT);
  const home = makeGeminiHome(path.join(host.scratch, 'sandbox-home'));
  const gemini = new Tmux(200, 50);
  t.after(() => gemini.stop());
  const env = {
    HOME: home,
    TMPDIR: host.tmpdir,
    GEMINI_API_KEY: 'dummy',
    // The product's exports: GEMINI_SANDBOX=podman, and PATH with its host-gateway shim for Podman 4.
    PATH: exported.PATH ?? machinePath,
    GEMINI_SANDBOX: exported.GEMINI_SANDBOX,
    GEMINI_SANDBOX_IMAGE: TEST_IMAGE,
    SANDBOX_SET_UID_GID: 'false',
    // The test's own: no network at all, so the socket is the only way to the editor.
    SANDBOX_FLAGS: '--network=none',
    // The image stands in for Google's: gemini and node come in as mounts, as they are installed there.
    SANDBOX_MOUNTS: [SANDBOX_MOUNTS, ...mounts.map(([from, to]) => `${from}:${to}:ro`), `${launcher}:/usr/local/bin/gemini:ro`, `${turns}:${turns}:ro`].join(
      ',',
    ),
    SANDBOX_ENV,
  };
  assert.equal(exported.GEMINI_SANDBOX, 'podman');
  // As the recipe says: `gemini`, the sandbox from GEMINI_SANDBOX (--sandbox would pick docker over it).
  const argv = [process.execPath, findGeminiCli()!.geminiBin, '--fake-responses', turns, '--model', 'gemini-2.5-flash', '--approval-mode', 'default'];
  gemini.start(shellCommand(argv, env, [...STRAY_IDE_ENV, ...HEADLESS_TRIGGER_ENV]), { cwd: host.workspace });
  await gemini.waitForText('Type your message', REMOTE_START_TIMEOUT_MS);
  // The footer's sandbox column says "current process" only inside the sandbox (SANDBOX is set there).
  assert.match(gemini.screen(), /current process/, 'gemini runs inside its sandbox');
  const file = path.join(host.workspace, 'a.txt');
  const againFile = path.join(host.workspace, AGAIN_FILE);
  // The sandbox keeps its /tmp to itself (the model's context is checked in the container and SSH flows).
  await converse(host, gemini, {
    file,
    read: () => fs.readFileSync(file, 'utf8'),
    again: { file: againFile, read: () => fs.readFileSync(againFile, 'utf8') },
  });
}

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, uid, gid);
    else fs.chownSync(p, uid, gid);
  }
}

/**
 * `ide-companion ssh remote --remote-path DIR` into a real sshd whose network
 * namespace cannot reach this loopback, as a second user with the project
 * checked out at another path: gemini started in that shell connects, the
 * model sees remote paths, the accepted bytes land in the remote file (the CLI
 * writes its own copy), the token is on no command line, and nothing of ours
 * stays on the remote once the shell ends.
 */
export async function sshFlow(t: TestContext, host: EditorHost): Promise<void> {
  await focusSeen(host);
  const sshdDir = `/var/tmp/ide-companion-sshd-${process.pid}-${Date.now()}`;
  const sshd = await startTestSshd(sshdDir);
  const shell = new Tmux(200, 50);
  t.after(async () => {
    await shell.stop();
    await sshd.stop();
    fs.rmSync(sshdDir, { recursive: true, force: true });
  });
  // The remote: the project checked out at another path; a fresh HOME for gemini (a previous session there
  // costs a scripted turn), with its settings and the scripted turns.
  // Per run: test files run in parallel, as one remote user.
  const run = `${process.pid}-${Date.now()}`;
  const remoteProject = path.join(sshd.home, `proj-${run}`);
  const geminiHome = path.join(sshd.home, `gemini-home-${run}`);
  t.after(() => {
    for (const dir of [remoteProject, geminiHome]) fs.rmSync(dir, { recursive: true, force: true });
  });
  for (const dir of [remoteProject, geminiHome]) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(remoteProject);
  // The remote checkout differs from this one: the review must show the remote file, the one the agent writes.
  fs.writeFileSync(path.join(remoteProject, 'a.txt'), REMOTE_ORIGINAL_TEXT);
  makeGeminiHome(geminiHome);
  writeTurns(path.join(geminiHome, 'turns.jsonl'), host.restart !== undefined);
  fs.writeFileSync(path.join(remoteProject, AGAIN_FILE), REMOTE_ORIGINAL_TEXT);
  fs.writeFileSync(path.join(host.workspace, AGAIN_FILE), ORIGINAL_TEXT);
  for (const dir of [remoteProject, geminiHome]) chownTree(dir, sshd.uid, sshd.gid);
  // The name the relay there gives its machine (os.hostname()), as the editor shows it.
  const remoteHost = sshd.run(`node -p "require('os').hostname()"`).stdout.trim();
  assert.ok(remoteHost, 'the remote names itself');

  // The companion's port is not reachable from the remote: only the forwarded socket is.
  const discoveryDir = path.join(host.tmpdir, 'gemini', 'ide');
  const discovery = JSON.parse(
    fs.readFileSync(
      path.join(
        discoveryDir,
        fs.readdirSync(discoveryDir).find((n) => n.endsWith('.json'))!,
      ),
      'utf8',
    ),
  ) as {
    port: number;
    authToken: string;
  };
  const probe = sshd.run(
    `node -e "require('net').connect(${discovery.port}, '127.0.0.1').on('connect', () => console.log('REACHED')).on('error', (e) => console.log(e.code))"`,
  );
  assert.equal(probe.stdout.trim(), 'ECONNREFUSED', `the remote must not reach this loopback: ${probe.stdout}${probe.stderr}`);

  // doctor in a plain SSH session there: no companion, and the command to run here.
  const lost = sshd.run(`cd ${remoteProject} && node ${sshd.there(IDE_COMPANION_BIN)} doctor`);
  assert.equal(lost.status, 1, lost.stdout + lost.stderr);
  assert.ok(lost.stdout.includes(`in an SSH session (from 127.0.0.1), and no companion serves ${remoteProject} on this machine`), lost.stdout);
  assert.match(lost.stdout, new RegExp(`ide-companion ssh ${SSH_TEST_USER}@\\S+ --remote-path ${remoteProject}`));

  // Its exit status said by the pane's shell: tmux 3.3a here once left the exited command a zombie, unreaped, and never said "Pane is dead".
  shell.start(
    `${shellCommand([process.execPath, IDE_COMPANION_BIN, 'ssh', 'remote', '--remote-path', remoteProject, '--', ...sshd.sshArgs], { TMPDIR: host.tmpdir })}; echo "[ssh exited $?]"`,
    {
      cwd: host.workspace,
    },
  );
  await shell.waitForText(`gemini here reaches ${host.displayName} on the other end`, REMOTE_STEP_TIMEOUT_MS);
  await sleep(500);
  // doctor in the ide-companion ssh shell: it would connect, through the relay.
  shell.type(`node ${sshd.there(IDE_COMPANION_BIN)} doctor > ${geminiHome}/doctor.txt 2>&1; echo doctor-exit-$?`);
  shell.keys('Enter');
  await shell.waitForText(/doctor-exit-\d/, REMOTE_STEP_TIMEOUT_MS);
  const there = sshd.run(`cat ${geminiHome}/doctor.txt`).stdout;
  assert.match(shell.screen(), /doctor-exit-0/, there);
  assert.ok(there.includes(`would connect to ${host.displayName}.`), there);
  assert.match(there, /through the relay, over stdio: node \/tmp\/ide-companion-ssh\.\w+\/connect\.mjs --socket/);
  shell.type('clear');
  shell.keys('Enter');
  await sleep(300);
  shell.type(
    `cd ${remoteProject} && HOME=${geminiHome} GEMINI_API_KEY=dummy node ${sshd.there(findGeminiCli()!.geminiBin)} --fake-responses ${geminiHome}/turns.jsonl --model gemini-2.5-flash --approval-mode default`,
  );
  shell.keys('Enter');
  const remoteFile = `${remoteProject}/a.txt`;
  let checkedTokens = false;
  const request = await converse(host, shell, {
    file: `${remoteFile} on the remote`,
    read: () => {
      if (!checkedTokens) {
        // The token travelled on ssh's stdin: no command line shows it, here or there.
        checkedTokens = true;
        assert.ok(!execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(discovery.authToken), 'no local command line holds the token');
        const remotePs = sshd.run('ps -eo args').stdout;
        assert.ok(remotePs.includes('connect.mjs') && !remotePs.includes(discovery.authToken), 'the relay runs there, its command line without the token');
      }
      return sshd.run(`cat ${remoteFile}`).stdout;
    },
    report: { list: () => sshd.run('ls /tmp').stdout.split('\n'), read: (n) => sshd.run(`cat /tmp/${n}`).stdout },
    again: { file: `${remoteProject}/${AGAIN_FILE} on the remote`, read: () => sshd.run(`cat ${remoteProject}/${AGAIN_FILE}`).stdout },
    expect: (name) => ({ shownPath: `${remoteHost}:${remoteProject}/${name}`, base: REMOTE_ORIGINAL_TEXT }),
  });
  assert.ok(request);
  for (const name of ['a.txt', ...(host.restart ? [AGAIN_FILE] : [])]) {
    assert.equal(
      fs.readFileSync(path.join(host.workspace, name), 'utf8'),
      ORIGINAL_TEXT,
      `the CLI wrote its own copy of ${name}, on the remote; this machine's is the editor's`,
    );
  }
  assert.match(request, new RegExp(`${remoteProject}/seen\\.txt`), 'the model saw the open file by its remote path');
  assert.ok(!request.includes(host.workspace), 'no path of this machine reached the model');

  if (host.noSession) {
    // The connection cut under a connected gemini (the master connection killed, as a network drop would):
    // the remote shell is hung up and cleans up, the editor ends that session.
    const master = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .find((line) => line.includes('ControlMaster=yes') && line.includes(`ControlPath=${host.tmpdir}`));
    assert.ok(master, 'the ssh master connection of this flow');
    process.kill(Number(master.trim().split(/\s+/)[0]), 'SIGKILL');
    await host.noSession();
    // Issue 39: a dropped connection has its own exit status and words (it exited 3, "ssh could not connect").
    const ended = await shell.waitForText(/\[ssh exited \d+\]/, REMOTE_STEP_TIMEOUT_MS);
    assert.match(ended, /\[ssh exited 4\]/, ended);
    assert.match(ended, /ide-companion ssh: the connection to remote dropped/, ended);
  } else {
    // Leaving: gemini, then the shell. Nothing of ours stays on the remote.
    shell.keys('C-c');
    await sleep(300);
    shell.keys('C-c');
    await shell.waitForText(/^\$\s*$/m, REMOTE_STEP_TIMEOUT_MS);
    shell.type('exit');
    shell.keys('Enter');
  }
  // Nothing of ours stays on the remote, after a clean exit or a cut. This sshd's /tmp is its namespace's
  // own: whatever is left there is this flow's.
  await waitFor(
    () => sshd.run('ls -d /tmp/ide-companion-ssh.* /tmp/gemini/ide/gemini-ide-server-* 2>/dev/null; true').stdout.trim() === '' || undefined,
    `the remote files of ${SSH_TEST_USER} to go`,
    REMOTE_STEP_TIMEOUT_MS,
    200,
  ).catch((err: Error) => {
    const left = sshd.run('ls -d /tmp/ide-companion-ssh.* /tmp/gemini/ide/* 2>/dev/null; true').stdout;
    const ps = execFileSync('ps', ['-u', SSH_TEST_USER, '-o', 'pid,ppid,pgid,sid,stat,wchan:20,args'], { encoding: 'utf8' });
    throw new Error(`${err.message}\n--- left there ---\n${left}--- ${SSH_TEST_USER}'s processes ---\n${ps}`);
  });
}
