/**
 * The README's install lines, run as written (issue 30): with npm 11,
 * `npm install -g --offline dist-release/ide-companion-0.1.0.tgz` failed
 * (npm read `dir/file.tgz` as a GitHub shorthand) and `npx
 * PATH_TO/ide-companion-0.1.0.tgz serve` failed with "Permission denied";
 * the release test installs from an absolute path, so it never saw either.
 * Here the top-level README's install block and each editor README's install
 * lines are parsed from the files and run by sh, placeholders filled as a
 * user would (YOUR_PROJECT a project folder, PATH_TO the clone's
 * dist-release), with this machine's npm, offline, into a throwaway HOME
 * and npm prefix, from a folder laid out as the clone after `npm run release`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeTempDir, shellQuote, skipUnless, Tmux, waitFor, which } from '@ide-companion/testkit';
import { buildRelease, REPO_ROOT } from '../src/build/release.js';

/** The install section's code block holding `npm install -g` (fenced or indented), its lines without blanks. */
function installBlock(readme: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Install'));
  assert.ok(section, 'an Install section');
  const blocks: string[][] = [];
  let current: string[] | undefined;
  let fenced = false;
  for (const line of section.split('\n')) {
    if (line.startsWith('```')) {
      fenced = !fenced;
      if (fenced) blocks.push((current = []));
      continue;
    }
    if (fenced) current!.push(line);
    else if (line.startsWith('    ')) {
      if (!current || !blocks.includes(current) || current.at(-1) === undefined) blocks.push((current = []));
      current.push(line.slice(4));
    } else if (line.trim() !== '') current = undefined;
  }
  const block = blocks.find((b) => b.some((l) => l.startsWith('npm install -g')));
  assert.ok(block, `a block with npm install -g in:\n${section}`);
  return block.filter((l) => l.trim() !== '');
}

const CODE_SERVER_ENTRY = path.join(REPO_ROOT, '.tools', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');

describe('the install lines of every README, as written', { skip: skipUnless(which('npm') !== undefined, 'npm'), timeout: 5 * 60_000 }, () => {
  const tmp = makeTempDir('ide-companion-readme-');
  const clone = path.join(tmp.path, 'clone');
  const project = path.join(tmp.path, 'my project');
  const prefix = path.join(tmp.path, 'prefix');
  const tools = path.join(tmp.path, 'tools');
  const env: Record<string, string> = {
    HOME: path.join(tmp.path, 'home'),
    TMPDIR: path.join(tmp.path, 'tmp'),
    PATH: [path.join(prefix, 'bin'), tools, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    LANG: 'C.UTF-8',
    npm_config_prefix: prefix,
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const fill = (line: string) => line.replaceAll('YOUR_PROJECT', `'${project}'`).replaceAll('PATH_TO', path.join(clone, 'dist-release'));
  const sh = (line: string) => {
    const r = spawnSync('sh', ['-c', fill(line)], { cwd: clone, env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `${fill(line)} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };

  before(async () => {
    for (const dir of [clone, project, env['HOME']!, env['TMPDIR']!, tools]) fs.mkdirSync(dir, { recursive: true });
    await buildRelease(path.join(clone, 'dist-release'));
    if (fs.existsSync(CODE_SERVER_ENTRY))
      fs.writeFileSync(path.join(tools, 'code-server'), `#!/bin/sh\nexec '${process.execPath}' '${CODE_SERVER_ENTRY}' "$@"\n`, { mode: 0o755 });
  });
  after(() => tmp.cleanup());

  test("the README's block: npm install -g --offline, ide-companion install neovim, and npx serve in a project answers", async (t) => {
    const lines = installBlock(fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'));
    assert.equal(lines.length, 3, lines.join('\n'));
    // Issue 39: in a terminal npx stops at "Ok to proceed? (y)" (this test's stdin is no terminal, so it never asks here).
    assert.match(lines[2]!, /\bnpx --yes -p /);
    assert.match(sh(lines[0]!), /added 1 package/);
    assert.equal(fs.realpathSync(path.join(prefix, 'bin', 'ide-companion')).startsWith(fs.realpathSync(prefix)), true);
    assert.match(sh(lines[1]!), /Installed the Neovim plugin/);
    // serve runs until stopped: started as written, stopped once it says where gemini connects from.
    const serve = spawn('sh', ['-c', fill(lines[2]!)], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
    serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    t.after(async () => {
      try {
        process.kill(-serve.pid!, 'SIGTERM');
      } catch {
        // Gone already.
      }
      await exited;
    });
    await waitFor(() => out.includes(`cd ${project} && gemini`) || undefined, `serve to start; it said:\n${out}`, 90_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${out}`);
    });
    assert.match(out, /ide-companion serve: companion for Gemini CLI/);
  });

  /*
   * Issue 39, trip 10: in a terminal, `npx -p TARBALL` first asks "Ok to
   * proceed? (y)" and waits for a key, which the README did not say. Its line
   * now has --yes and says why. Both run in a terminal (tmux: the test above
   * has no TTY, where npx never asks), each with an npm cache of its own (npx
   * asks only for a package its cache lacks).
   */
  test(
    'in a terminal, the README\'s npx line without --yes stops at npx\'s "Ok to proceed? (y)"; as written it asks nothing and serve starts',
    { skip: skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') },
    async (t) => {
      const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
      const line = installBlock(readme).find((l) => /\bnpx\b/.test(l));
      assert.ok(line, 'an npx line');
      assert.match(line, /\bnpx --yes -p /);
      assert.match(readme.replace(/\s+/g, ' '), /`--yes` answers npx's "Ok to proceed\? \(y\)", which otherwise waits for a key/);
      const inTerminal = (command: string, cache: string) => {
        const tmux = new Tmux(200, 20);
        t.after(() => tmux.stop());
        const vars = Object.entries({ ...env, npm_config_cache: path.join(tmp.path, cache) }).map(([k, v]) => `${k}=${v}`);
        tmux.start(['env', '-i', ...vars, 'sh', '-c', fill(command)].map(shellQuote).join(' '), { cwd: clone });
        return tmux;
      };
      const bare = inTerminal(line.replace('npx --yes ', 'npx '), 'cache-bare');
      await bare.waitForText('Ok to proceed? (y)', 90_000);
      const asWritten = inTerminal(line, 'cache-yes');
      await asWritten.waitForText('ide-companion serve: companion for', 90_000);
      assert.doesNotMatch(asWritten.screen(), /Ok to proceed/);
    },
  );

  for (const editor of ['neovim', 'vim', 'emacs', 'vscode']) {
    test(`editors/${editor}/README.md: its install lines`, (t) => {
      const lines = installBlock(fs.readFileSync(path.join(REPO_ROOT, 'editors', editor, 'README.md'), 'utf8'));
      for (const line of lines) {
        if (line.startsWith('npm install -g')) assert.match(sh(line), /added 1 package|changed 1 package/);
        else if (line.startsWith(`ide-companion install ${editor}`)) {
          if (editor === 'vscode' && !fs.existsSync(path.join(tools, 'code-server'))) {
            t.diagnostic('code-server is not installed (scripts/install-code-server.sh): `install vscode` not run');
            continue;
          }
          assert.match(sh(line), /Installed/);
        }
      }
    });
  }

  /*
   * Emacs's other documented install (issue 30): `M-x package-install-file`
   * on the release's tar puts it into elpa/ide-companion-VERSION, which
   * `install` listed as not installed and `uninstall emacs` left behind.
   */
  test(
    'Emacs by package-install-file: install lists it as installed, uninstall emacs removes it',
    { skip: which('emacs') ? false : 'emacs is not installed' },
    () => {
      sh('ide-companion uninstall emacs');
      const elpa = path.join(env['HOME']!, '.emacs.d', 'elpa');
      const tar = path.join(clone, 'dist-release', 'ide-companion-0.1.0.tar');
      const r = spawnSync('emacs', ['--batch', '-Q', '--eval', `(progn (package-initialize) (package-install-file ${JSON.stringify(tar)}))`], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(
        fs.readdirSync(elpa).some((n) => n.startsWith('ide-companion-')),
        fs.readdirSync(elpa).join(', '),
      );
      assert.match(sh('ide-companion install'), /^ {2}emacs +Emacs \((editor found|editor not found), installed\)$/m);
      assert.match(sh('ide-companion uninstall emacs'), /Removed the Emacs package from .*elpa\/ide-companion-0\.1\.0/);
      assert.deepEqual(
        fs.readdirSync(elpa).filter((n) => n.startsWith('ide-companion')),
        [],
      );
      assert.match(sh('ide-companion install'), /^ {2}emacs +Emacs \((editor found|editor not found), not installed\)$/m);
    },
  );
});

/*
 * The README's first line, `npm install` in the clone (issue 30): npm 11.16+
 * warned that esbuild's install script (and two of vsce's) were not covered
 * by `allowScripts`. package.json's allowScripts now names them: npm is quiet
 * and esbuild, whose postinstall checks its binary, still bundles.
 */
test('`npm install` in the clone says nothing about install scripts, and esbuild works', { skip: skipUnless(which('npm') !== undefined, 'npm') }, async () => {
  const r = spawnSync('npm', ['install', '--offline', '--dry-run', '--no-audit', '--no-fund'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /install-scripts|allowScripts/, r.stderr);
  const esbuild = (await import('esbuild')) as typeof import('esbuild');
  assert.equal((await esbuild.transform('let a: number = 1', { loader: 'ts' })).code, 'let a = 1;\n');
});

/*
 * Issue 39, trip 10: the README told the reader to see "the warning a fresh
 * `npm install` prints", which npm no longer prints (the test above). Its
 * words now name package.json's allowScripts: each package there, no warning.
 */
test("the README's words on npm install's scripts: package.json's allowScripts, each package named, no warning", () => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const bullet = readme
    .split(/\n- /)
    .find((b) => b.includes('install script'))
    ?.replace(/\s+/g, ' ');
  assert.ok(bullet, "the README's words on install scripts");
  const allowed = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {},
  );
  assert.ok(allowed.length > 0, "package.json's allowScripts");
  assert.match(bullet, /`package\.json`'s `allowScripts`/);
  assert.deepEqual(
    allowed.filter((name) => !bullet.includes(name)),
    [],
    bullet,
  );
  assert.doesNotMatch(bullet, /warn/i, bullet);
});
