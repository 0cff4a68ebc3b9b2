#!/usr/bin/env node
// bench-requires: chromium .tools/code-server
/**
 * Activation cost of the VS Code extension, in a real extension host
 * (code-server 4.100.3 driven by Chromium, the tests' harness): the time
 * `activate()` takes, companion start (HTTP listen, discovery file) and
 * context feed included, as the extension measures it with performance.now()
 * and reports in its API. Each round opens a fresh window (a fresh extension
 * host) on a folder with a few files, reads the figure, and closes it.
 *
 * The limit, measured in the same run: 5% of the time the same window takes to
 * open (page load to extension host running). The extension activates on
 * onStartupFinished, after the workbench is up, so even that cost does not
 * delay the editor's start; it is there so the extension never grows heavy.
 *
 * Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CodeServer } from '../editors/vscode/dist/test/codeServer.js';
import { log, machine, ms, runBench, summarize } from './lib/common.mjs';

const ROUNDS = Number(process.env['BENCH_VSCODE_ROUNDS']) || 3;
const LIMIT_FRACTION = 0.05;

runBench(async () => {
  const cs = new CodeServer();
  try {
    const workspace = path.join(cs.dir, 'ws');
    fs.mkdirSync(workspace);
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(workspace, `file${i}.ts`), `export const n = ${i};\n`);
    log('installing the extension and starting code-server');
    await cs.start();
    const activation = [];
    const windowOpen = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const win = await cs.openWindow(workspace);
      windowOpen.push(performance.now() - started);
      const api = await win.api();
      activation.push(api.activationMs);
      log(`round ${round + 1}: activate() ${ms(api.activationMs)} ms, window ${Math.round(windowOpen.at(-1))} ms`);
      await win.close();
    }
    const activationMs = summarize(activation);
    const windowOpenMs = summarize(windowOpen);
    const limitMs = ms(windowOpenMs.p50 * LIMIT_FRACTION);
    return {
      machine: machine(),
      rounds: ROUNDS,
      activationMs,
      windowOpenMs,
      limit: { activationP50Ms: limitMs, rule: `${LIMIT_FRACTION * 100}% of the window's open time (p50), same run` },
      withinLimit: activationMs.p50 <= limitMs,
    };
  } finally {
    await cs.stop();
  }
});
