#!/usr/bin/env node
// Runs every compiled test file (`<package>/dist/test/**/*.test.js`) with node's test runner.
// Node 20's --test takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const files = [];
for (const group of ['packages', 'editors']) {
  const base = join(root, group);
  if (!existsSync(base)) continue;
  for (const pkg of readdirSync(base)) {
    const testDir = join(base, pkg, 'dist', 'test');
    if (existsSync(testDir)) walk(testDir, files);
  }
}
const selected = files.filter((f) => filter.length === 0 || filter.some((s) => f.includes(s))).sort();
if (selected.length === 0) {
  console.error('no test files found: run `npx tsc -b` first');
  process.exit(1);
}
console.error(`running ${selected.length} test files: ${selected.map((f) => relative(root, f)).join(' ')}`);
// Every companion a test starts also writes Qwen Code's and Claude Code's lock files (QWEN_HOME/ide,
// CLAUDE_CONFIG_DIR/ide): into folders of the run's own, not the user's ~/.qwen and ~/.claude.
const qwenHome = process.env.QWEN_HOME ? undefined : mkdtempSync(join(tmpdir(), 'ide-companion-tests-qwen-'));
const claudeConfig = process.env.CLAUDE_CONFIG_DIR ? undefined : mkdtempSync(join(tmpdir(), 'ide-companion-tests-claude-'));
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', ...selected], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, ...(qwenHome && { QWEN_HOME: qwenHome }), ...(claudeConfig && { CLAUDE_CONFIG_DIR: claudeConfig }) },
});
for (const dir of [qwenHome, claudeConfig]) if (dir) rmSync(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);
