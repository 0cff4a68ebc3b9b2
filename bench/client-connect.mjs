#!/usr/bin/env node
// bench-requires: .tools/gemini-cli
/**
 * Connect time of our client versus the real Gemini CLI's IdeClient, on the
 * same companion, in one run: discovery (process-tree walk + discovery files)
 * + MCP handshake + the first ide/contextUpdate. Each sample runs in a fresh
 * child process (the CLI's IdeClient is a per-process singleton) and is timed
 * inside the child after its imports, so node start-up is not counted.
 * Also: process-tree walk time, ours (/proc on Linux) and the CLI's (`ps` per ancestor).
 *
 *   node bench/client-connect.mjs [--samples N]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findGeminiCli, runNode } from '@ide-companion/testkit';
import { log, ms, printResult, skipBench, startCompanion, summarize, scaled } from './lib/common.mjs';

const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), '..');
const clientDist = pathToFileURL(path.join(root, 'packages', 'client', 'dist', 'src', 'index.js')).href;

// ---- child mode: one measurement, printed as JSON -------------------------
if (process.argv[2] === '--child') {
  const which = process.argv[3];
  for (const l of ['log', 'info', 'debug', 'warn']) console[l] = () => {};
  if (which === 'ours') {
    const { CompanionClient } = await import(clientDist);
    const t0 = performance.now();
    const client = new CompanionClient({ reconnect: false, heartbeatMs: 0, wellKnownPorts: false });
    const ok = await client.connect();
    const t1 = performance.now();
    const ctx = ok ? await client.waitForContext(10_000) : undefined;
    const t2 = performance.now();
    await client.stop();
    // Warm: a second client in the same process (modules loaded, JIT warm, IDE process known).
    const w0 = performance.now();
    const again = new CompanionClient({ reconnect: false, heartbeatMs: 0, wellKnownPorts: false, ideProcess: client.discovery?.ideProcess });
    const ok2 = (await again.connect()) && !!(await again.waitForContext(10_000));
    const w1 = performance.now();
    await again.stop();
    process.stdout.write(JSON.stringify({ ok: ok && !!ctx && ok2, handshakeMs: t1 - t0, totalMs: t2 - t0, warmMs: w1 - w0 }));
  } else if (which === 'real') {
    const ideDir = path.join(process.argv[4], 'dist', 'src', 'ide');
    const { IdeClient } = await import(pathToFileURL(path.join(ideDir, 'ide-client.js')).href);
    const { ideContextStore } = await import(pathToFileURL(path.join(ideDir, 'ideContext.js')).href);
    /** When the store next holds a context (performance.now()), or undefined after 10 s. */
    const nextContext = () =>
      Promise.race([
        new Promise((resolve) => {
          const un = ideContextStore.subscribe((c) => {
            if (c) {
              un();
              resolve(performance.now());
            }
          });
        }),
        new Promise((r) => setTimeout(() => r(undefined), 10_000)),
      ]);
    const t0 = performance.now();
    const first = nextContext();
    const client = await IdeClient.getInstance();
    await client.connect({ logToConsole: false });
    const t1 = performance.now();
    const ok = client.getConnectionStatus().status === 'connected';
    const t2 = ok ? await first : undefined;
    await client.disconnect();
    // Warm: /ide enable again in the same process (the singleton keeps its IDE process info).
    const w0 = performance.now();
    const second = nextContext();
    await client.connect({ logToConsole: false });
    const w1 = await second;
    await client.disconnect();
    process.stdout.write(
      JSON.stringify({ ok: ok && t2 !== undefined && w1 !== undefined, handshakeMs: t1 - t0, totalMs: (t2 ?? t1) - t0, warmMs: (w1 ?? 0) - w0 }),
    );
  } else if (which === 'walk') {
    const { findIdeProcess } = await import(clientDist);
    const { getIdeProcessInfo } = await import(pathToFileURL(path.join(process.argv[4], 'dist', 'src', 'ide', 'process-utils.js')).href);
    const env = { ...process.env };
    delete env.GEMINI_CLI_IDE_PID;
    const out = { ours: [], real: [], samePid: true };
    for (let i = 0; i < 10; i++) {
      let t = performance.now();
      const a = await findIdeProcess({ env });
      out.ours.push(performance.now() - t);
      t = performance.now();
      const b = await getIdeProcessInfo();
      out.real.push(performance.now() - t);
      if (a.pid !== b.pid) out.samePid = false;
    }
    process.stdout.write(JSON.stringify(out));
  }
  process.exit(0);
}

// ---- parent mode ------------------------------------------------------------
const cli = findGeminiCli();
if (!cli) skipBench('the pinned Gemini CLI is not installed (scripts/install-gemini-cli.sh)');
const samplesArg = process.argv.indexOf('--samples');
const samples = samplesArg > 0 ? Number(process.argv[samplesArg + 1]) : scaled(7, 1);

const { companion, tmp, workspace, cleanup } = await startCompanion();
const file = path.join(workspace, 'main.ts');
fs.writeFileSync(file, 'export {};\n');
companion.context.focus(file);

const childEnv = { ...process.env, TMPDIR: tmp, REMOTE_CONTAINERS: '1' };
for (const k of Object.keys(childEnv)) if (k.startsWith('GEMINI_CLI_IDE_')) delete childEnv[k];

/** Async on purpose: the companion lives in this process and must keep answering. */
async function runChild(which) {
  const r = await runNode([self, '--child', which, cli.coreDir], { cwd: workspace, env: childEnv });
  if (r.code !== 0) throw new Error(`${which} child failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

try {
  const ours = [];
  const real = [];
  const oursHandshake = [];
  const realHandshake = [];
  const oursWarm = [];
  const realWarm = [];
  // Interleaved, so machine load hits both alike.
  for (let i = 0; i < samples; i++) {
    log(`sample ${i + 1}/${samples}`);
    const a = await runChild('ours');
    const b = await runChild('real');
    if (!a.ok || !b.ok) throw new Error(`a client did not get context: ours ${JSON.stringify(a)} real ${JSON.stringify(b)}`);
    ours.push(a.totalMs);
    oursHandshake.push(a.handshakeMs);
    real.push(b.totalMs);
    realHandshake.push(b.handshakeMs);
    oursWarm.push(a.warmMs);
    realWarm.push(b.warmMs);
  }
  const walk = await runChild('walk');
  const o = summarize(ours);
  const r = summarize(real);
  printResult({
    description: 'discovery + MCP handshake + first ide/contextUpdate, fresh process per sample, same companion',
    samples,
    cold: {
      ours: { connectToFirstContextMs: o, connectMs: summarize(oursHandshake) },
      realCli: { version: cli.version, connectToFirstContextMs: r, connectMs: summarize(realHandshake) },
    },
    ratioOursToRealP50: ms(o.p50 / r.p50),
    warm: {
      description: 'a second connect in the same process, to first context',
      oursMs: summarize(oursWarm),
      realCliMs: summarize(realWarm),
      ratioOursToRealP50: ms(summarize(oursWarm).p50 / summarize(realWarm).p50),
    },
    processTreeWalk: {
      oursMs: summarize(walk.ours),
      realCliMs: summarize(walk.real),
      ratioOursToRealP50: ms(summarize(walk.ours).p50 / summarize(walk.real).p50),
      samePid: walk.samePid,
    },
  });
} finally {
  await cleanup();
}
