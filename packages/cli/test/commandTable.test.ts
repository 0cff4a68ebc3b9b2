/** The command table is the one place for options and exit codes: the README, --help and each command's usage come from it. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot, runNode } from '@ide-companion/testkit';
import { commandSpec, exitCodeMarkdown, parseCommandArgs, usageOf, UsageError } from '../src/commandTable.js';
import { COMMANDS, loadCommand } from '../src/commands/index.js';

const commandTable = () => COMMANDS.map((c) => c.spec);

const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

test("the README's exit-code table is the command table's, 3 included", async () => {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const table = exitCodeMarkdown(commandTable());
  assert.ok(readme.includes(table), `README.md must contain:\n${table}`);
  assert.ok(commandSpec('diff').exits[3], 'diff documents its exit 3');
});

test('every command is in the table under its own name, loads from where the table says, and prints the usage its spec makes', async () => {
  for (const entry of COMMANDS) {
    assert.equal(entry.spec.name, entry.name);
    const command = await loadCommand(entry);
    assert.equal(command.usage, usageOf(entry.spec), entry.name);
  }
});

test('parsing takes exactly the options of the table: an unknown one or a stray argument is a usage error', () => {
  assert.deepEqual(parseCommandArgs(commandSpec('diff'), ['a.txt', '-', '--write', '--timeout', '5']).positionals, ['a.txt', '-']);
  assert.throws(() => parseCommandArgs(commandSpec('status'), ['--write']), UsageError);
  assert.throws(() => parseCommandArgs(commandSpec('status'), ['stray']), UsageError);
  assert.equal(parseCommandArgs(commandSpec('check'), ['--no-diffs']).values['no-diffs'], true);
});

test("--help lists every command and the exit codes; --version is package.json's", async () => {
  const help = await runNode([BIN, '--help'], { cwd: repoRoot, env: process.env });
  assert.equal(help.code, 0);
  for (const c of commandTable()) assert.match(help.stdout, new RegExp(`^  ${c.name}\\s`, 'm'));
  assert.match(help.stdout, /Exit status .*0 yes, 1 no, 2 usage error, 3 error/);
  // Issue 39: a dropped ssh connection exited 3, "ssh could not connect".
  assert.match(help.stdout, /^ {2}ssh +.*; 4 the connection dropped under the remote shell/m);
  // Issue 39: help named Gemini CLI alone; issue 36: every agent, from AGENTS (Droid's face added no line here).
  assert.match(
    help.stdout,
    /terminal coding agents \(Gemini CLI, Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp, Factory Droid\)\nin any editor/,
  );
  assert.match(help.stdout, /diff +0 accepted; 1 rejected \(or interrupted\); 2 usage error; 3 no answer/);
  // Every exit-code row in one column (uninstall and container, longer than 8, pushed theirs right: issue 30).
  const rows = help.stdout
    .split('Exit status')[1]!
    .split('\n')
    .filter((l) => /^ {2}\w+ +0 /.test(l));
  assert.equal(rows.length, commandTable().length);
  assert.deepEqual(new Set(rows.map((l) => l.indexOf('  0 '))).size, 1, rows.join('\n'));
  const version = await runNode([BIN, '--version'], { cwd: repoRoot, env: process.env });
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout, `${pkg.version}\n`);
});
