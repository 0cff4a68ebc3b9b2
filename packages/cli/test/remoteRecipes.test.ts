/**
 * The recipes' words (issue 29): `container` and `sandbox` name the stable
 * address, not one companion's run, and work before the editor starts;
 * `sandbox`'s exports are whole values (run twice in one shell, nothing is
 * mounted twice); with a Podman before 5 its PATH puts first a podman that
 * drops the host-gateway option; `ssh`'s usage line puts --remote-path before --.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { startTestCompanion } from '@ide-companion/server/testing';
import { stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';
import { IDE_COMPANION_BIN, makeTempDir } from '@ide-companion/testkit';
import { podmanShimScript } from '../src/commands/sandbox.js';
import { RELAY_BUNDLE_PATH } from '../src/connect/build/bundle.js';

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [IDE_COMPANION_BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function setup(t: import('node:test').TestContext) {
  const tmp = makeTempDir();
  t.after(() => tmp.cleanup());
  const workspace = path.join(tmp.path, 'proj');
  fs.mkdirSync(workspace);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: tmp.path, TMPDIR: tmp.path };
  return { tmp: tmp.path, workspace, env, socket: workspaceSocketPath(stableSocketDir({ tmpdir: tmp.path }), workspace) };
}

test('container before the editor: the words name the stable address and the relay reconnects; the same words once it runs', { timeout: 60_000 }, async (t) => {
  const { tmp, workspace, env, socket } = setup(t);
  const before = run(['container', '--podman', '--json'], workspace, env);
  assert.equal(before.code, 0, before.stderr);
  const words = JSON.parse(before.stdout) as { args: string[]; socket: string; served: boolean };
  assert.equal(words.served, false);
  assert.equal(words.socket, socket);
  assert.ok(words.args.includes(`${path.dirname(socket)}:/run/ide-companion:ro`), words.args.join(' '));
  const own = path.join(path.dirname(socket), 'projects', workspace);
  assert.ok(words.args.includes(`${own}:/tmp/gemini/ide:ro`), "the discovery files: this project's own folder of the stable one");
  assert.deepEqual(fs.readdirSync(own).filter((n) => n.startsWith('gemini-ide-server-')).length, 1, 'one discovery file: this project at this place');
  assert.ok(fs.statSync(path.join(path.dirname(socket), 'connect.mjs')).isFile(), "the relay's copy in the stable folder");
  const stdioArgs = words.args.find((a) => a.startsWith('GEMINI_CLI_IDE_SERVER_STDIO_ARGS='))!;
  assert.match(stdioArgs, new RegExp(`--socket","/run/ide-companion/${path.basename(socket)}","--reconnect"`));
  assert.ok(!stdioArgs.includes('--remote-files'), 'a container mounts the project, one file on both sides: its relay sends no diff base');
  const h = await startTestCompanion({ tmp, workspace });
  t.after(() => h.cleanup());
  const after = JSON.parse(run(['container', '--podman', '--json'], workspace, env).stdout) as { args: string[]; served: boolean };
  assert.equal(after.served, true);
  assert.deepEqual(after.args, words.args, 'the words do not change with the editor: a container made once keeps working');
});

test('sandbox: whole values, the user entries kept, nothing twice when run again; GEMINI_SANDBOX names the runtime', { timeout: 60_000 }, (t) => {
  const { workspace, env } = setup(t);
  const userMount = '/data:/data:ro';
  const first = run(['sandbox', '--docker', '--json'], workspace, { ...env, SANDBOX_MOUNTS: userMount, SANDBOX_ENV: 'A=1' });
  assert.equal(first.code, 0, first.stderr);
  const v1 = JSON.parse(first.stdout) as Record<string, string>;
  assert.equal(v1['GEMINI_SANDBOX'], 'docker');
  assert.ok(v1['SANDBOX_MOUNTS']!.startsWith(`${userMount},`));
  assert.equal(v1['SANDBOX_MOUNTS']!.split(',').filter((m) => m.endsWith(':/run/ide-companion:ro')).length, 1);
  // The shell's way, twice in one shell: eval of the printed exports.
  const script = `eval "$(node ${IDE_COMPANION_BIN} sandbox --docker)" && eval "$(node ${IDE_COMPANION_BIN} sandbox --docker)" && printf '%s\\n%s\\n' "$SANDBOX_MOUNTS" "$SANDBOX_ENV"`;
  const twice = spawnSync('sh', ['-c', script], { cwd: workspace, env: { ...env, SANDBOX_MOUNTS: userMount, SANDBOX_ENV: 'A=1' }, encoding: 'utf8' });
  assert.equal(twice.status, 0, twice.stderr);
  const [mounts, envs] = twice.stdout.trim().split('\n');
  assert.equal(mounts, v1['SANDBOX_MOUNTS'], 'run twice: the same mounts, none twice');
  assert.equal(envs, `A=1,GEMINI_CLI_IDE_WORKSPACE_PATH=${workspace}`);
});

test('the podman shim drops only host-gateway and passes everything else, in order', (t) => {
  const { tmp } = setup(t);
  const fake = path.join(tmp, 'fake-podman');
  fs.writeFileSync(fake, '#!/bin/sh\nprintf "[%s]" "$@"\n', { mode: 0o755 });
  const shim = path.join(tmp, 'podman');
  fs.writeFileSync(shim, podmanShimScript(fake), { mode: 0o755 });
  const r = spawnSync(shim, ['run', '--add-host', 'host.docker.internal:host-gateway', '--add-host', 'a:10.0.0.1', '-v', 'x y:/z', 'img'], {
    encoding: 'utf8',
  });
  assert.equal(r.stdout, '[run][--add-host][a:10.0.0.1][-v][x y:/z][img]');
});

test('sandbox with a Podman before 5: PATH puts the shim first, once', { timeout: 60_000 }, (t) => {
  const { workspace, env } = setup(t);
  const version = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  const major = Number(/(\d+)\./.exec(version.stdout ?? '')?.[1]);
  if (!(major < 5)) return t.skip('needs podman < 5 (Debian 12 has 4.3)');
  const v = JSON.parse(run(['sandbox', '--podman', '--json'], workspace, env).stdout) as Record<string, string>;
  const first = v['PATH']!.split(':')[0]!;
  assert.ok(fs.statSync(path.join(first, 'podman')).isFile());
  const again = JSON.parse(run(['sandbox', '--podman', '--json'], workspace, { ...env, PATH: v['PATH'] }).stdout) as Record<string, string>;
  assert.equal(again['PATH'], v['PATH'], 'the shim once on PATH');
  const through = spawnSync(path.join(first, 'podman'), ['--version'], { encoding: 'utf8' });
  assert.equal(through.stdout, version.stdout, 'the real podman answers through it');
});

test("ssh's usage line: --remote-path before --, which hands the rest to ssh", () => {
  const r = spawnSync(process.execPath, [IDE_COMPANION_BIN, 'ssh', '--help'], { encoding: 'utf8' });
  assert.match(r.stdout, /^Usage: ide-companion ssh \[USER@\]HOST \[--remote-path DIR\] \[-- SSH_OPTIONS\]$/m);
});

test(
  'doctor through the relay with no editor running: says so, and that starting the editor is the fix; then, with it, would connect',
  { timeout: 90_000 },
  async (t) => {
    const { tmp, workspace, env } = setup(t);
    const words = JSON.parse(run(['container', '--podman', '--json'], workspace, env).stdout) as { discoveryDir: string };
    // The file the container's gemini reads, here, under this test's PID (as the container's PID 1).
    const [only] = fs.readdirSync(words.discoveryDir);
    const there = JSON.parse(fs.readFileSync(path.join(words.discoveryDir, only!), 'utf8')) as { stdio: { command: string; args: string[] } };
    const relayArgs = there.stdio.args
      .slice(1)
      .map((a) => a.replace(/^\/run\/ide-companion/, path.dirname(workspaceSocketPath(stableSocketDir({ tmpdir: tmp }), workspace))));
    // Here the container's path is this one: the map names the workspace on both sides.
    const mapAt = relayArgs.indexOf('--map');
    if (mapAt !== -1) relayArgs.splice(mapAt, 2, '--map', `${workspace}=${workspace}`);
    const ideDir = path.join(tmp, 'gemini', 'ide');
    fs.mkdirSync(ideDir, { recursive: true });
    fs.writeFileSync(
      path.join(ideDir, `gemini-ide-server-${process.pid}-1.json`),
      JSON.stringify({
        workspacePath: workspace,
        ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
        stdio: { command: process.execPath, args: [RELAY_BUNDLE_PATH, ...relayArgs] },
      }),
    );
    const doctorEnv = { ...env, GEMINI_CLI_IDE_PID: String(process.pid) };
    const before = run(['doctor'], workspace, doctorEnv);
    assert.equal(before.code, 1, before.stdout);
    // Issue 39: it named the socket, not the project, and said "for 0 s" (a relay just started has seen nothing for any time).
    assert.ok(before.stdout.includes(`no editor companion serves ${workspace} (through `), before.stdout);
    assert.doesNotMatch(before.stdout, / for 0 s/);
    assert.match(before.stdout, /Start your editor \(or `ide-companion serve`\) in the project on its machine: nothing here needs changing/);
    const h = await startTestCompanion({ tmp, workspace });
    t.after(() => h.cleanup());
    // Not spawnSync: the companion answers from this process.
    const child = spawn(process.execPath, [IDE_COMPANION_BIN, 'doctor'], { cwd: workspace, env: doctorEnv });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const after = { code, stdout: out };
    assert.equal(after.code, 0, after.stdout);
    assert.match(after.stdout, /would connect to Test IDE\./);
    for (const r of [before, after]) {
      assert.match(r.stdout, /the workspace socket's companion adds its own/, 'the token finding says where the token is');
      assert.doesNotMatch(r.stdout, /REMOTE_CONTAINERS/, 'no advice about dialling a port: the relay dials none');
    }
  },
);

/*
 * Issue 35: every container mounted one folder holding the discovery file of
 * every project, all at /workspaces/proj and all PID 1, and gemini took the
 * first it read: the container of one project reached another's editor.
 */
test(
  "container: two projects at one container path each mount a folder with their own discovery alone; the shared folder of before and a gone project's files are swept",
  { timeout: 60_000 },
  (t) => {
    const { tmp, env } = setup(t);
    const stable = stableSocketDir({ tmpdir: tmp });
    const projects = ['a', 'b', 'gone'].map((name) => path.join(tmp, name, 'proj'));
    for (const p of projects) fs.mkdirSync(p, { recursive: true });
    // What an earlier version left: the folder every container mounted, a file of some project in it.
    fs.mkdirSync(path.join(stable, 'gemini-ide'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(stable, 'gemini-ide', 'gemini-ide-server-1-4242.json'), '{"workspacePath":"/workspaces/proj"}');
    const mounted = (p: string) => {
      const r = run(['container', '--podman'], p, env);
      assert.equal(r.code, 0, r.stderr);
      const mount = r.stdout.split(/\s+/).find((w) => w.endsWith(':/tmp/gemini/ide:ro'))!;
      return mount.slice(0, -':/tmp/gemini/ide:ro'.length);
    };
    const gone = mounted(projects[2]!);
    fs.rmSync(path.dirname(projects[2]!), { recursive: true });
    const seen = projects.slice(0, 2).map((p) => {
      const dir = mounted(p);
      assert.equal(dir, path.join(stable, 'projects', p));
      const files = fs.readdirSync(dir).filter((n) => n.startsWith('gemini-ide-server-'));
      assert.equal(files.length, 1, `${p}: one discovery file where gemini looks`);
      const there = JSON.parse(fs.readFileSync(path.join(dir, files[0]!), 'utf8')) as { workspacePath: string; stdio: { args: string[] } };
      assert.equal(there.workspacePath, '/workspaces/proj');
      assert.deepEqual(there.stdio.args.slice(there.stdio.args.indexOf('--map'), there.stdio.args.indexOf('--map') + 2), ['--map', `${p}=/workspaces/proj`]);
      assert.ok(there.stdio.args.includes(`/run/ide-companion/${path.basename(workspaceSocketPath(stable, p))}`), "its own project's socket");
      return dir;
    });
    assert.notEqual(seen[0], seen[1]);
    assert.equal(fs.existsSync(path.join(stable, 'gemini-ide')), false, 'the folder every project shared is gone');
    assert.equal(fs.existsSync(gone), false, 'the folder of a project gone from this machine is swept');
    // The same project at a place nested with an earlier one: gemini would take either, so the earlier goes.
    const a = projects[0]!;
    const again = run(['container', '--podman', '--at', '/workspaces'], a, env);
    assert.equal(again.code, 0, again.stderr);
    const files = fs.readdirSync(seen[0]!).filter((n) => n.startsWith('gemini-ide-server-'));
    assert.equal(files.length, 1, files.join(' '));
    assert.equal((JSON.parse(fs.readFileSync(path.join(seen[0]!, files[0]!), 'utf8')) as { workspacePath: string }).workspacePath, '/workspaces');
    // A place not nested with it stays beside it.
    assert.equal(run(['container', '--podman', '--at', '/src'], a, env).code, 0);
    assert.equal(fs.readdirSync(seen[0]!).filter((n) => n.startsWith('gemini-ide-server-')).length, 2);
  },
);
