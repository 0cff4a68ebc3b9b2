#!/usr/bin/env node
// Runs every compiled test file (`<package>/dist/test/**/*.test.js`) with node's test runner.
// Node 20's --test takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
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
// Every process the run starts inherits this mark (unless a test gives it an environment of its own): what
// still carries it once the tests ended was left behind by one (issue 39, trip 9: Codex's detached daemons).
const runMark = `IDE_COMPANION_TEST_RUN=${randomUUID()}`;
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', ...selected], {
  stdio: 'inherit',
  cwd: root,
  env: {
    ...process.env,
    IDE_COMPANION_TEST_RUN: runMark.slice(runMark.indexOf('=') + 1),
    ...(qwenHome && { QWEN_HOME: qwenHome }),
    ...(claudeConfig && { CLAUDE_CONFIG_DIR: claudeConfig }),
  },
});
for (const dir of [qwenHome, claudeConfig]) if (dir) rmSync(dir, { recursive: true, force: true });
const left = await leftovers(runMark);
if (left.length > 0) {
  console.error(`\n${left.length} process(es) the tests started are still running (stopped now):`);
  for (const { pid, cmd } of left) console.error(`  ${pid} ${cmd}`);
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}
process.exit(result.status === 0 && left.length > 0 && process.env.CI === 'true' ? 1 : (result.status ?? 1));

/** The processes whose environment holds `mark`, after up to 3 s for those still ending; Linux only (/proc). */
async function leftovers(mark) {
  const scan = () => {
    let names = [];
    try {
      names = readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
    } catch {
      return [];
    }
    const found = [];
    for (const name of names) {
      try {
        if (!readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(mark)) continue;
        const cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 160);
        // A zombie has no command line and holds nothing.
        if (cmd) found.push({ pid: Number(name), cmd });
      } catch {
        // Gone meanwhile, or not ours to read.
      }
    }
    return found;
  };
  for (let i = 0; i < 30; i++) {
    const found = scan();
    if (found.length === 0 || i === 29) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}
