/**
 * The docs' lists and pointers stay true (issue 39, trips 12 and 15): each
 * editor's help for its agents option names every agent the option takes (read
 * from the option's own source), and every test file the docs name exists.
 * And sentences a user acts on, held to the code that makes them true (trips
 * 9, 12 and 17): the README's kept folders, docs/agents.md on Claude Code,
 * docs/remote.md on serve's banner and ssh's exit codes.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { keptDirectory } from '@ide-companion/server/keptProposals';
import type { ActionParams } from '@ide-companion/protocol';
import { RecordingEditor, startTestCompanion } from '@ide-companion/server/testing';
import { ensureStableSocketDir, stableSocketDir } from '@ide-companion/server/workspaceSockets';
import { AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';
import { connectClaudeClient, IDE_COMPANION_BIN, makeTempDir, repoRoot, waitFor } from '@ide-companion/testkit';
import { SSH_SPEC } from '../src/commandTable.js';

const read = (rel: string) => fs.readFileSync(path.join(repoRoot, rel), 'utf8');

/** The names not in `text`, each looked for as a quoted word ('x', "x" or `x`). */
function missingNames(text: string, names: readonly string[]): string[] {
  return names.filter((n) => !new RegExp(`['"\`]${n}['"\`]`).test(text));
}

/** The README table row of `option` (its first cell). */
function readmeRow(readme: string, option: string): string {
  const row = readme.split('\n').find((l) => l.startsWith(`| \`${option}\` |`));
  assert.ok(row, `a row for ${option}`);
  return row;
}

test("Emacs's README names every agent `ide-companion-agents` takes, and says no 'all three'", () => {
  const source = read('editors/emacs/ide-companion-options.el');
  const form = /\(defcustom ide-companion-agents[\s\S]*?\n\n/.exec(source)?.[0];
  assert.ok(form, 'the defcustom of ide-companion-agents');
  const names = [...form.matchAll(/\(const "([a-z]+)"\)/g)].map((m) => m[1]!);
  // The option's choices are parseAgents' names, opencode included (a check of the reading above too).
  assert.deepEqual(new Set(names), new Set([...AGENTS, ...Object.keys(FACE_OF)]));
  const row = readmeRow(read('editors/emacs/README.md'), 'ide-companion-agents');
  assert.deepEqual(missingNames(row, names), [], row);
  assert.doesNotMatch(row, /all three/);
});

test("VS Code's README names every agent `ideCompanion.agents` takes", () => {
  const pkg = JSON.parse(read('editors/vscode/package.json')) as {
    contributes: {
      configuration: { properties: Record<string, { items?: { enum?: string[] } }> } | Array<{ properties: Record<string, { items?: { enum?: string[] } }> }>;
    };
  };
  const configs = [pkg.contributes.configuration].flat();
  const names = configs.map((c) => c.properties['ideCompanion.agents']?.items?.enum).find((e) => e !== undefined);
  assert.ok(names && names.length > 0, 'the enum of ideCompanion.agents');
  const row = readmeRow(read('editors/vscode/README.md'), 'ideCompanion.agents');
  assert.deepEqual(missingNames(row, names), [], row);
  assert.doesNotMatch(row, /all three/);
});

test("Vim's and Neovim's help name every agent their option takes (parseAgents' names: Vim and Neovim pass the list to it)", () => {
  const names = [...AGENTS, ...Object.keys(FACE_OF)];
  const vim = read('editors/vim/doc/ide-companion.txt');
  const entry = /\*g:ide_companion_agents\*[\s\S]*?(?=\n\*g:)/.exec(vim)?.[0];
  assert.ok(entry, 'the help entry of g:ide_companion_agents');
  assert.deepEqual(missingNames(entry, names), [], entry);
  const nvimLine = read('editors/neovim/doc/ide-companion.txt')
    .split('\n')
    .find((l) => /^\s+agents = /.test(l));
  assert.ok(nvimLine, "the agents line of Neovim's setup()");
  assert.deepEqual(missingNames(nvimLine, names), [], nvimLine);
});

/** Every doc a user or a contributor reads for where a thing is tested. */
function docFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const readmes = ['editors', 'packages'].flatMap((dir) =>
    fs
      .readdirSync(path.join(repoRoot, dir))
      .map((d) => `${dir}/${d}/README.md`)
      .filter((f) => fs.existsSync(path.join(repoRoot, f))),
  );
  return ['README.md', ...docs, ...readmes];
}

/** `a/{b,c}/d` → `a/b/d`, `a/c/d` (one level of braces, as the docs write them). */
function expandBraces(p: string): string[] {
  const m = /\{([^{}]*)\}/.exec(p);
  if (!m) return [p];
  return m[1]!.split(',').flatMap((alt) => expandBraces(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length)));
}

/** Every `*.test.ts` source under packages/ and editors/, as repo-relative paths. */
function testFiles(): string[] {
  const out: string[] = [];
  for (const top of ['packages', 'editors']) {
    for (const pkg of fs.readdirSync(path.join(repoRoot, top))) {
      const dir = path.join(repoRoot, top, pkg, 'test');
      if (!fs.existsSync(dir)) continue;
      for (const f of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        if (f.endsWith('.test.ts')) out.push(`${top}/${pkg}/test/${f}`);
      }
    }
  }
  return out;
}

test('every test file the docs name exists (a path from the root exactly; a short name as the end of some test path)', () => {
  const tests = testFiles();
  assert.ok(tests.length > 50, `found ${tests.length} test files`);
  const missing: string[] = [];
  let checked = 0;
  for (const doc of docFiles()) {
    for (const [name] of read(doc).matchAll(/[\w./{},-]*\.test\.ts/g)) {
      if (name.startsWith('.') || name === '.test.ts') continue;
      for (const one of expandBraces(name)) {
        checked++;
        // A placeholder folder (editors/NAME/test/...) stands for any: some package must have the file.
        const placeholder = /^(packages|editors)\/[A-Z]+\//.exec(one);
        const exists = placeholder
          ? tests.some((t) => t.startsWith(placeholder[1]!) && t.endsWith(one.slice(placeholder[0].length - 1)))
          : /^(packages|editors)\//.test(one)
            ? fs.existsSync(path.join(repoRoot, one))
            : tests.some((t) => t.endsWith(`/${one.replace(/^\//, '')}`));
        if (!exists) missing.push(`${doc}: ${one}`);
      }
    }
  }
  assert.ok(checked > 50, `checked ${checked} names`);
  assert.deepEqual(missing, []);
});

/** `text` with its line breaks and runs of spaces as one space, as a sentence reads. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

/*
 * Issue 39, trip 9: the README said `uninstall` and `npm uninstall -g` remove
 * everything; two folders in the temp folder stay on purpose. Its sentence
 * names them: each name is the one the code makes, and its `rm -r` line,
 * run as written, removes both.
 */
test("the README's two kept folders are the code's (the stable address, the kept proposals), and its rm line removes them", () => {
  const readme = flat(read('README.md'));
  const m =
    /removes everything but two folders in the temp folder, kept on purpose: `([^`]+)` \(`([^`]+)` where that is set;[^)]*\) and, when a proposal was kept for you, `([^`]+)`; remove them by hand[^(]*\(`(rm -r [^`]+)`\)/.exec(
      readme,
    );
  assert.ok(m, "the README's sentence on the folders uninstall leaves");
  const [, stable, runtime, kept, rm] = m as unknown as [string, string, string, string, string];
  const uid = String(process.getuid!());
  const tmp = makeTempDir('ide-companion-docs-kept-');
  const savedTmpdir = process.env['TMPDIR'];
  try {
    const named = (p: string) => path.join(tmp.path, p.replace('UID', uid));
    assert.equal(stableSocketDir({ tmpdir: tmp.path, env: {} }), named(stable).replace(/\/$/, ''));
    assert.equal(stableSocketDir({ env: { XDG_RUNTIME_DIR: '/run/user/7' } }), runtime.replace('$XDG_RUNTIME_DIR', '/run/user/7').replace(/\/$/, ''));
    // What the code makes: the stable folder (and its parent), the kept proposals' folder (in os.tmpdir()).
    ensureStableSocketDir(stableSocketDir({ tmpdir: tmp.path, env: {} }));
    process.env['TMPDIR'] = tmp.path;
    assert.equal(keptDirectory(), named(kept).replace(/\/$/, ''));
    assert.deepEqual(fs.readdirSync(tmp.path).sort(), [`ide-companion-${uid}`, `ide-companion-kept-${uid}`]);
    const r = spawnSync('sh', ['-c', rm], { env: { PATH: process.env['PATH'], TMPDIR: tmp.path }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(fs.readdirSync(tmp.path), [], `${rm} leaves nothing`);
  } finally {
    if (savedTmpdir === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = savedTmpdir;
    tmp.cleanup();
  }
});

/*
 * Issue 39, trip 12: docs/agents.md said claudecode.nvim sends the selection
 * on connect (it is ours) and listed openFile's endText and selectToEndOfLine
 * as not done (both work). Each sentence is held to the Claude face a real
 * companion serves: what the doc lists as not done is no tool nor openFile
 * field there, what it says works is, and the selection comes on connect. The
 * tests the doc cites for both are named.
 */
test('docs/agents.md on Claude Code: what is not done is missing from the face, endText and selectToEndOfLine are there, the selection comes on connect', async (t) => {
  const doc = read('docs/agents.md');
  const notDone = flat(/\*\*Not done for Claude Code:\*\*([\s\S]*?)\n\n/.exec(doc)?.[1] ?? '');
  assert.ok(notDone, 'the "Not done for Claude Code" paragraph');
  // Its first sentence, what a parenthesis says works taken out: the names it lists as missing.
  const first = notDone.split(/\.\s/)[0]!;
  const works = [...first.matchAll(/\(([^()]*\bwork\b[^()]*)\)/g)].map((w) => w[1]!);
  const missing = [...first.replace(/\([^()]*\bwork\b[^()]*\)/g, '').matchAll(/`(\w+)`/g)].map((n) => n[1]!);
  const working = works.flatMap((w) => [...w.matchAll(/`(\w+)`/g)].map((n) => n[1]!)).filter((n) => n !== 'openFile');
  assert.deepEqual(working.sort(), ['endText', 'selectToEndOfLine'], first);
  const row = doc.split('\n').find((l) => l.startsWith('| Claude Code '));
  assert.ok(row, "Claude Code's row in the table of every agent");
  const lacks = [...row.split(' | ')[3]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!);

  // An editor that opens files (the face offers openFile only then), recording what it was asked.
  const opened: Array<ActionParams<'openFile'>> = [];
  const editor = new (class extends RecordingEditor {
    openFile(params: ActionParams<'openFile'>): void {
      opened.push(params);
    }
  })();
  const h = await startTestCompanion({ editor });
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'a.ts');
  fs.writeFileSync(file, 'one\ntwo\n');
  h.companion.context.focus(file, { cursor: { line: 2, character: 1 } });
  const lock = JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')) as { authToken: string };
  const claude = await connectClaudeClient({ port: h.companion.port, token: lock.authToken });
  t.after(() => claude.close());
  // On connect, before anything moves: "sent on connect (claudecode.nvim does not)".
  const first_ = await waitFor(() => claude.notifications.find((n) => n.method === 'selection_changed'), 'selection_changed on connect');
  assert.equal(first_.params.filePath, file);
  const tools = ((await claude.request('tools/list')) as { tools: Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }> }).tools;
  const openFile = tools.find((tool) => tool.name === 'openFile');
  assert.ok(openFile, 'the face serves openFile');
  const served = new Set([...tools.map((tool) => tool.name), ...Object.keys(openFile.inputSchema.properties ?? {})]);
  assert.deepEqual(
    [...missing, ...lacks].filter((n) => served.has(n)),
    [],
    `listed as not done yet served: ${first} / ${row}`,
  );
  assert.deepEqual(
    working.filter((n) => !served.has(n)),
    [],
    'said to work, yet no field of openFile',
  );
  // And they do: the selection runs to endText's end, or to the end of its line (no end column).
  await claude.callTool('openFile', { filePath: file, startText: 'ne', endText: 'tw' });
  assert.deepEqual(opened.at(-1), { path: file, line: 1, column: 2, endLine: 2, endColumn: 3 });
  await claude.callTool('openFile', { filePath: file, startText: 'ne', selectToEndOfLine: true });
  assert.deepEqual(opened.at(-1), { path: file, line: 1, column: 2, endLine: 1 });

  // The sentences: the selection on connect is ours, never claudecode.nvim's; each claim cites the test that shows it.
  const flatDoc = flat(doc);
  assert.match(flatDoc, /`selection_changed` on connect \(ours: claudecode\.nvim sends none/);
  assert.match(flatDoc, /sent on connect \(claudecode\.nvim does not\)/);
  assert.doesNotMatch(flatDoc, /claudecode\.nvim (also )?sends (the|its) selection on connect/);
  assert.match(flatDoc, /`packages\/server\/test\/claudeFace\.test\.ts`/);
  assert.match(read('packages/server/test/claudeFace.test.ts'), /^test\('selection_changed on connect/m);
  assert.match(
    read('packages/server/test/claudeParity.test.ts'),
    /^test\('openFile selects what its anchors name: startText to endText, to the end of the line/m,
  );
});

/*
 * Issue 39, trip 17: docs/remote.md said serve's banner shows the socket; it
 * showed the per-process one, not the stable address the recipes mount and
 * forward. The doc's sentence against a real serve's banner and the doc's own
 * layout of the stable folder; its words on ssh's exit codes against the
 * command table (`ssh --help`, the README's table).
 */
test("docs/remote.md: serve's banner shows the stable address of its layout, not the per-process socket; ssh's exit codes are the command table's", async (t) => {
  const doc = flat(read('docs/remote.md'));
  assert.match(doc, /serve's banner shows the project's stable address \(below\), the one the recipes mount and forward, not its own per-process socket/);
  // The layout: "(else <tmpdir>/ide-companion-<UID>/workspaces/)" holding "<sha256(folder)[:16]>.sock".
  const folder = /\(else (<tmpdir>\/[^)\s]+)\)/.exec(doc)?.[1];
  assert.ok(folder && doc.includes('<sha256(folder)[:16]>.sock'), 'the stable folder and socket names in the layout');

  const tmp = makeTempDir('ide-companion-docs-banner-');
  const project = path.join(tmp.path, 'proj');
  const tmpdir = path.join(tmp.path, 'tmp');
  for (const dir of [project, tmpdir, path.join(tmp.path, 'home')]) fs.mkdirSync(dir);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: path.join(tmp.path, 'home'), TMPDIR: tmpdir };
  const serve = spawn(process.execPath, [IDE_COMPANION_BIN, 'serve', '--no-color'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
  serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => serve.once('exit', resolve));
  t.after(async () => {
    serve.kill('SIGTERM');
    await exited;
    tmp.cleanup();
  });
  const shown = await waitFor(() => /^Also on (\S+): /m.exec(out)?.[1], `serve's banner; it said:\n${out}`, 30_000);
  const real = fs.realpathSync(project);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 16);
  assert.equal(shown, path.join(folder.replace('<tmpdir>', tmpdir).replace('<UID>', String(process.getuid!())), `${hash}.sock`));
  const discovery = path.join(tmpdir, 'gemini', 'ide');
  const own = fs.readdirSync(discovery).map((f) => (JSON.parse(fs.readFileSync(path.join(discovery, f), 'utf8')) as { socketPath?: string }).socketPath);
  assert.ok(own[0], 'serve has a per-process socket too');
  assert.ok(!out.includes(own[0]), 'the banner does not show the per-process socket');

  const exits = /`ssh` exits 3 when (.+?), and 4 when (.+?); the README lists every exit code/.exec(doc);
  assert.ok(exits, "docs/remote.md's words on ssh's exit codes");
  assert.deepEqual([exits[1], exits[2]], [SSH_SPEC.exits[3], SSH_SPEC.exits[4]]);
});

test("`npx ide-companion` is written only of a clone, where npx runs the workspace's own command; a user's terminal runs the installed `ide-companion`", () => {
  // Outside the clone, npx would look the name up on the npm registry, where it is not published (README: Install).
  const docs = ['README.md', ...['editors', 'docs'].flatMap((dir) => markdownFiles(dir))];
  const stray: string[] = [];
  for (const rel of docs) {
    const paragraphs = read(rel).split(/\n\s*\n/);
    for (const p of paragraphs) if (/npx\s+ide-companion\b/.test(p) && !/\bclone\b/.test(p)) stray.push(`${rel}: ${p.trim().slice(0, 120)}`);
  }
  assert.deepEqual(stray, []);
});

/** The Markdown files under `dir` (relative to the repository), node_modules and build output left out. */
function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number) => {
    if (depth > 6) return;
    for (const entry of fs.readdirSync(path.join(repoRoot, rel), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child, depth + 1);
      else if (entry.name.endsWith('.md')) out.push(child);
    }
  };
  walk(dir, 0);
  return out;
}
