/**
 * The docs' lists and pointers stay true (issue 39, trips 12 and 15): each
 * editor's help for its agents option names every agent the option takes (read
 * from the option's own source), and every test file the docs name exists.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';
import { repoRoot } from '@ide-companion/testkit';

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
