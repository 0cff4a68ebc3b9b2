/**
 * Two projects at one container path (issue 35, docs/remote.md): a user
 * serving projects A and B at once, each used from a `--network=none` Podman
 * container at /workspaces/proj (the docs' own example) started with
 * `ide-companion container --podman`'s words, while a third project C, used
 * the same way, has stopped. Each container's gemini (the real 0.61.0,
 * scripted) must reach its own project's editor, round after round: its
 * proposal shown in its own serve, accepted there, the bytes in its own file.
 * Before, every container mounted one folder holding the discovery file of
 * every project, and gemini took whichever it read first.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';
import {
  containerGeminiArgv,
  editorWriting,
  IDE_COMPANION_BIN,
  makeGeminiHome,
  makeTempDir,
  ORIGINAL_TEXT,
  PODMAN_GLOBAL_FLAGS,
  PODMAN_RUN_FLAGS,
  REMOTE_START_TIMEOUT_MS,
  REMOTE_STEP_TIMEOUT_MS,
  remoteFlowSkips,
  removeContainer,
  shellCommand,
  STRAY_IDE_ENV,
  submitLine,
  TEST_IMAGE,
  Tmux,
  waitFor,
  waitIdeConnected,
  writeTurns,
} from '@ide-companion/testkit';

const ROUNDS = 3;
const AT = '/workspaces/proj';
const skip = remoteFlowSkips().podman;
/** Every companion and command of the test shares one TMPDIR (one stable folder), as one user's do. */
const UNSET = [...STRAY_IDE_ENV, 'XDG_RUNTIME_DIR'];

interface Project {
  name: string;
  /** `<tmp>/<name>/proj`: every project has the same last name, so each is at /workspaces/proj by default. */
  workspace: string;
  /** What this project's editor ($EDITOR in serve) writes when the user edits the proposal. */
  edited: string;
  serve: Tmux;
}

function ideCompanion(args: string[], cwd: string, tmpdir: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmpdir };
  for (const name of UNSET) delete env[name];
  const r = spawnSync(process.execPath, [IDE_COMPANION_BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `ide-companion ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The files of the companion serving `workspace`: its discovery file, its socket folder, the project's socket at the stable address. */
function companionFiles(tmpdir: string, workspace: string): string[] | undefined {
  const dir = path.join(tmpdir, 'gemini', 'ide');
  const name = (fs.existsSync(dir) ? fs.readdirSync(dir) : []).find((n) => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as { workspacePath?: string }).workspacePath === workspace;
    } catch {
      return false;
    }
  });
  const match = name && /^gemini-ide-server-(\d+)-(\d+)\.json$/.exec(name);
  if (!match) return undefined;
  const files = [
    path.join(dir, name),
    path.join(tmpdir, `ide-companion-${process.getuid!()}`, `${match[1]}-${match[2]}`),
    workspaceSocketPath(stableSocketDir({ tmpdir }), workspace),
  ];
  return files.every((f) => fs.existsSync(f)) ? files : undefined;
}

test(
  `two projects served at once, each from a container at ${AT}, a stopped project's left behind: each gemini reaches its own editor, ${ROUNDS} rounds of ${ROUNDS}; the stopped companion's files are gone`,
  { skip, timeout: 25 * 60_000 },
  async (t) => {
    const tmp = makeTempDir('ide-companion-projects-');
    const tmpdir = path.join(tmp.path, 'tmp');
    fs.mkdirSync(tmpdir);
    const projects: Project[] = ['a', 'b', 'c'].map((name) => {
      const workspace = path.join(tmp.path, name, 'proj');
      fs.mkdirSync(workspace, { recursive: true });
      return { name, workspace, edited: `written in the editor of project ${name}\n`, serve: new Tmux(160, 50) };
    });
    const geminis: Tmux[] = [];
    const containers: string[] = [];
    t.after(async () => {
      for (const g of geminis) await g.stop();
      for (const c of containers) removeContainer(c);
      for (const p of projects) await p.serve.stop();
      tmp.cleanup();
    });
    for (const p of projects) {
      const editor = editorWriting(path.dirname(p.workspace), p.edited);
      p.serve.start(
        shellCommand([process.execPath, IDE_COMPANION_BIN, 'serve', '--workspace', p.workspace, '--no-color'], { TMPDIR: tmpdir, EDITOR: editor }, UNSET),
        { cwd: tmp.path },
      );
    }
    for (const p of projects) await p.serve.waitForText(`cd ${p.workspace} && gemini`, REMOTE_STEP_TIMEOUT_MS);

    // C: its container's words written (its discovery file for /workspaces/proj), then its editor stops.
    const [a, b, c] = projects as [Project, Project, Project];
    assert.match(ideCompanion(['container', '--podman'], c.workspace, tmpdir), new RegExp(`${c.workspace}:${AT}`));
    const cFiles = await waitFor(() => companionFiles(tmpdir, c.workspace), "C's companion files", REMOTE_STEP_TIMEOUT_MS, 200);
    await c.serve.stop();
    await waitFor(
      () => cFiles.every((f) => !fs.existsSync(f)) || undefined,
      "the stopped companion's files (discovery file, socket folder, workspace socket) to go",
      REMOTE_STEP_TIMEOUT_MS,
      200,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; left: ${cFiles.filter((f) => fs.existsSync(f)).join(', ')}`);
    });

    const reached: Record<string, number> = { a: 0, b: 0 };
    const failures: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // A file of its own each round: the editors' screens still show the earlier rounds' proposals.
      const target = `round-${round}.txt`;
      for (const p of [a, b]) fs.writeFileSync(path.join(p.workspace, target), ORIGINAL_TEXT);
      await Promise.all(
        [a, b].map(async (p) => {
          const other = p === a ? b : a;
          const words = ideCompanion(['container', '--podman'], p.workspace, tmpdir).split(/\s+/);
          assert.ok(words.includes(`${p.workspace}:${AT}`), words.join(' '));
          if (round === 1) {
            // Where gemini looks in that container: this project's discovery file alone.
            const seen = spawnSync(
              'podman',
              [
                ...PODMAN_GLOBAL_FLAGS,
                'run',
                ...PODMAN_RUN_FLAGS,
                ...words,
                TEST_IMAGE,
                'sh',
                '-c',
                'for f in /tmp/gemini/ide/*; do echo "== $f"; cat "$f"; echo; done',
              ],
              { encoding: 'utf8', timeout: 120_000 },
            );
            assert.equal(seen.status, 0, seen.stderr);
            const files = seen.stdout.split('\n').filter((l) => l.startsWith('== '));
            const own = `"--map","${p.workspace}=${AT}"`;
            if (files.length !== 1 || !seen.stdout.includes(own))
              failures.push(`project ${p.name}'s container sees ${files.length} discovery files where gemini looks, not its own alone:\n${seen.stdout}`);
          }
          const scratch = path.join(tmp.path, `${p.name}-round-${round}`);
          fs.mkdirSync(scratch);
          const name = `ide-companion-test-projects-${p.name}-${process.pid}-${Date.now()}`;
          containers.push(name);
          const gemini = new Tmux(200, 50);
          geminis.push(gemini);
          const argv = containerGeminiArgv({
            words,
            name,
            home: makeGeminiHome(path.join(scratch, 'home')),
            turns: writeTurns(path.join(scratch, 'turns.jsonl'), false, target),
          });
          gemini.start(shellCommand(argv), { cwd: scratch });
          const file = path.join(p.workspace, target);
          try {
            await gemini.waitForText('Type your message', REMOTE_START_TIMEOUT_MS);
            await waitIdeConnected(gemini, REMOTE_START_TIMEOUT_MS);
            await submitLine(gemini, `please write ${target}`);
            // Its own editor shows its proposal (its file, by this machine's path) and the user accepts it there, edited.
            await p.serve.waitForText(`proposes a change to ${file}`, REMOTE_STEP_TIMEOUT_MS);
            await p.serve.waitForText('[a]ccept', REMOTE_STEP_TIMEOUT_MS);
            p.serve.type('e');
            await p.serve.waitForText('(with your edits)', REMOTE_STEP_TIMEOUT_MS);
            p.serve.type('a');
            await waitFor(() => fs.readFileSync(file, 'utf8') === p.edited || undefined, `${file} to hold its editor's text`, REMOTE_STEP_TIMEOUT_MS, 200);
            await gemini.waitForText(/Done\./, REMOTE_STEP_TIMEOUT_MS);
            reached[p.name]!++;
          } catch (err) {
            failures.push(
              `round ${round}, project ${p.name}: ${(err as Error).message}\n--- its gemini ---\n${gemini.screen()}\n--- its editor ---\n${p.serve.screen()}\n--- the other project's editor ---\n${other.serve.screen()}`,
            );
          } finally {
            await gemini.stop();
            removeContainer(name);
          }
        }),
      );
    }
    assert.deepEqual(reached, { a: ROUNDS, b: ROUNDS }, `each container reached its own editor in every round:\n${failures.join('\n\n')}`);
    assert.deepEqual(failures, []);
  },
);
