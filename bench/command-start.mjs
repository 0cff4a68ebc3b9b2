#!/usr/bin/env node
/**
 * How fast the commands a user types answer, as the released package runs them
 * (issue 20): `npm run release`'s tarball installed with `npm install -g
 * --offline` into a private prefix, run in an empty project with a private
 * HOME and TMPDIR (no companion to reach, so each command's own start is what
 * is measured). Twice: in the env this bench inherits (where the issue measured
 * node at 0.08 s: NODE_EXTRA_CA_CERTS makes every node load the system's CA
 * certificates) and in a minimal env (HOME, TMPDIR, PATH, LANG), where a bare
 * node starts in ~25 ms and the commands' own loading weighs the most.
 *
 * - `--help`, `status`, `doctor`, `list` and `context`: spawn to exit, next to
 *   a bare `node -e 0`, interleaved (every target once per round), p50 of
 *   each; goal: each at most 1.5x the bare node.
 * - `mcp`: spawn to the answer of `tools/list` (after initialize), next to a
 *   minimal stdio MCP server written with the same SDK
 *   (bench/lib/minimal-mcp-server.mjs, one tool); goal: at most 1.5x.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, machine, makeTempDir, ms, runBench, scaled, summarize, withTimeout } from './lib/common.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MINIMAL_MCP = path.join(root, 'bench/lib/minimal-mcp-server.mjs');
const ROUNDS = scaled(25, 2);
const COMMANDS = ['--help', 'status', 'doctor', 'list', 'context'];
/** What each answers with no companion around: a run that ends otherwise (a crash is 2 or 3) is not a start. */
const EXPECTED_EXIT = { '--help': 0, status: 1, doctor: 1, list: 1, context: 1 };
const GOAL = 1.5;

/** The release, installed into a fresh prefix; the command's main file (run with node, as the bin link does). */
async function installRelease(dir) {
  const { buildRelease } = await import(path.join(root, 'packages/cli/dist/src/build/release.js'));
  const release = await buildRelease(path.join(dir, 'dist-release'));
  const prefix = path.join(dir, 'prefix');
  const r = spawnSync('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, release.tarball], {
    encoding: 'utf8',
    env: { ...process.env, HOME: path.join(dir, 'home') },
  });
  if (r.status !== 0) throw new Error(`npm install -g failed: ${r.stderr}`);
  return fs.realpathSync(path.join(prefix, 'bin', 'ide-companion'));
}

function timeExit(argv, options, expectedExit = 0) {
  const started = performance.now();
  const r = spawnSync(process.execPath, argv, { ...options, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (r.error) throw r.error;
  if (r.status !== expectedExit) throw new Error(`${argv.slice(1).join(' ')} exited ${r.status}, not ${expectedExit}: ${r.stderr.slice(0, 500)}`);
  return elapsed;
}

/** Spawn to the tools/list answer of a stdio MCP server. */
async function timeToolsList(argv, options) {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { ...options, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  let buffer = '';
  const answered = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list', params: {} });
        } else if (message.id === 2) resolve({ at: performance.now(), tools: message.result?.tools?.length ?? 0 });
      }
    });
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code} before answering tools/list`)));
  });
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  const { at, tools } = await withTimeout(answered, 20_000, 'tools/list');
  child.kill('SIGTERM');
  if (tools === 0) throw new Error(`${argv.join(' ')} listed no tools`);
  return at - started;
}

runBench(async () => {
  const tmp = makeTempDir('ide-companion-bench-start-');
  try {
    log('building and installing the release');
    const bin = await installRelease(tmp.path);
    const project = path.join(tmp.path, 'project');
    const tmpdir = path.join(tmp.path, 'tmp');
    fs.mkdirSync(project);
    fs.mkdirSync(tmpdir);
    const home = path.join(tmp.path, 'home');
    const minimalEnv = { HOME: home, TMPDIR: tmpdir, PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
    const options = { cwd: project, env: minimalEnv };
    // Both envs: node's own start depends on it (NODE_EXTRA_CA_CERTS, set on this machine, costs
    // every node ~35 ms), and the ratio with it.
    const envs = { inherited: { ...process.env, HOME: home, TMPDIR: tmpdir }, minimal: minimalEnv };
    const startup = {};
    const vsLimit = {};
    for (const [envName, env] of Object.entries(envs)) {
      const samples = Object.fromEntries(['node -e 0', ...COMMANDS].map((name) => [name, []]));
      log(`${ROUNDS} rounds of ${Object.keys(samples).join(', ')} (${envName} env)`);
      for (let round = 0; round < ROUNDS; round++) {
        samples['node -e 0'].push(timeExit(['-e', '0'], { cwd: project, env }));
        for (const command of COMMANDS) samples[command].push(timeExit([bin, command], { cwd: project, env }, EXPECTED_EXIT[command]));
      }
      startup[envName] = Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summarize(list)]));
      const bare = startup[envName]['node -e 0'].p50;
      vsLimit[envName] = Object.fromEntries(COMMANDS.map((c) => [c, ms(startup[envName][c].p50 / bare)]));
    }
    const mcp = { 'ide-companion mcp': [], 'minimal SDK server': [] };
    log(`${ROUNDS} rounds of mcp tools/list`);
    for (let round = 0; round < ROUNDS; round++) {
      mcp['ide-companion mcp'].push(await timeToolsList([bin, 'mcp'], options));
      mcp['minimal SDK server'].push(await timeToolsList([MINIMAL_MCP], { ...options, cwd: root }));
    }

    const toolsList = Object.fromEntries(Object.entries(mcp).map(([name, list]) => [name, summarize(list)]));
    vsLimit.mcp = ms(toolsList['ide-companion mcp'].p50 / toolsList['minimal SDK server'].p50);
    return {
      machine: machine(),
      rounds: ROUNDS,
      startupMs: startup,
      mcpToolsListMs: toolsList,
      vsLimit,
      goal: GOAL,
      met: {
        inherited: Object.values(vsLimit.inherited).every((ratio) => ratio <= GOAL),
        minimal: Object.values(vsLimit.minimal).every((ratio) => ratio <= GOAL),
        mcp: vsLimit.mcp <= GOAL,
      },
    };
  } finally {
    tmp.cleanup();
  }
});
