#!/usr/bin/env node
/**
 * Runs every `bench/*.mjs` except this one, one after another, each in its own
 * node process, and prints one JSON object keyed by file name:
 *
 *   { "broadcast.mjs": { ...that bench's JSON... },
 *     "neovim-keystroke.mjs": { "skipped": "nvim is not on PATH" },
 *     "oops.mjs": { "error": "exit code 1", ... } }
 *
 * `node bench/run-all.mjs [--quick] [SUBSTRING...]` runs only the benches whose
 * file name contains one of the substrings. Progress goes to stderr. `--quick`
 * (or BENCH_QUICK=1) runs each with a few samples, for CI: it proves every bench
 * still runs; its figures mean nothing and nothing is asserted on them.
 *
 * A bench that needs an external program says so in a comment near its top:
 *
 *   // bench-requires: nvim tmux
 *
 * Each entry is a command looked up on PATH, or a path (containing '/') relative
 * to the repository root, e.g. `.tools/gemini-cli`. When one is missing the bench
 * is not run and its entry is `{ "skipped": "<why>" }`. A bench may also find
 * out for itself and print `{ "skipped": "<why>" }` (lib/common.mjs: skipBench).
 *
 * Exit code 1 when a bench failed (skips are not failures).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(benchDir, '..');
const self = path.basename(fileURLToPath(import.meta.url));
/** A bench must stop by itself; this is the backstop. */
const TIMEOUT_MS = Number(process.env['BENCH_TIMEOUT_MS']) || 15 * 60_000;
const HEADER_LINES = 40;
const quick = process.argv.includes('--quick') || process.env['BENCH_QUICK'] === '1';

function log(message) {
  process.stderr.write(`[run-all] ${message}\n`);
}

/** Entries of the `// bench-requires:` comments in the first lines of `file`. */
function declaredRequirements(file) {
  const head = fs.readFileSync(file, 'utf8').split('\n').slice(0, HEADER_LINES);
  const requirements = [];
  for (const line of head) {
    const match = /^\s*(?:\/\/|\*)\s*bench-requires:\s*(.+)$/.exec(line);
    if (match) requirements.push(...match[1].split(/[\s,]+/).filter(Boolean));
  }
  return requirements;
}

function onPath(command) {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

/** Why the bench cannot run here, or undefined. */
function missingRequirement(file) {
  const missing = declaredRequirements(file).filter((req) => (req.includes('/') ? !fs.existsSync(path.resolve(root, req)) : !onPath(req)));
  if (missing.length === 0) return undefined;
  return `missing ${missing.map((m) => (m.includes('/') ? `${m} (in the repository)` : `${m} (not on PATH)`)).join(', ')}`;
}

/** The bench's JSON object: all of stdout, or else the last `{`-started block that parses. */
function parseOutput(stdout) {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    for (let i = text.lastIndexOf('\n{'); i >= 0; i = text.lastIndexOf('\n{', i - 1)) {
      try {
        return JSON.parse(text.slice(i + 1));
      } catch {
        // keep looking further up
      }
    }
    if (text.startsWith('{')) throw new Error('stdout is not one JSON object');
    throw new Error('no JSON object on stdout');
  }
}

function runOne(file) {
  return new Promise((resolve) => {
    const started = performance.now();
    const env = quick ? { ...process.env, BENCH_QUICK: '1' } : process.env;
    const child = spawn(process.execPath, [file], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (stdout += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ error: `could not start: ${err.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      log(`${path.basename(file)}: ${timedOut ? 'timed out' : signal ? `killed by ${signal}` : `exit ${code}`} after ${seconds} s`);
      if (timedOut) return resolve({ error: `timed out after ${TIMEOUT_MS / 1000} s`, stdoutTail: stdout.slice(-2000) });
      if (code !== 0) return resolve({ error: signal ? `killed by ${signal}` : `exit code ${code}`, stdoutTail: stdout.slice(-2000) });
      try {
        resolve(parseOutput(stdout));
      } catch (err) {
        resolve({ error: err.message, stdoutTail: stdout.slice(-2000) });
      }
    });
  });
}

async function main() {
  const filters = process.argv.slice(2).filter((arg) => arg !== '--quick');
  const files = fs
    .readdirSync(benchDir)
    .filter((name) => name.endsWith('.mjs') && name !== self)
    .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
    .sort();
  if (files.length === 0) {
    log(`no bench matches ${filters.join(' ')}`);
    return 2;
  }
  log(`running ${files.length} bench(es) one at a time${quick ? ' in quick mode' : ''}: ${files.join(' ')}`);
  const results = {};
  let failed = 0;
  for (const name of files) {
    const file = path.join(benchDir, name);
    const missing = missingRequirement(file);
    if (missing) {
      log(`${name}: skipped, ${missing}`);
      results[name] = { skipped: missing };
      continue;
    }
    log(`${name}: running`);
    results[name] = await runOne(file);
    if (results[name]?.error !== undefined) failed++;
  }
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (failed > 0) log(`${failed} bench(es) failed`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    log(`failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exitCode = 1;
  },
);
