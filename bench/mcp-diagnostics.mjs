#!/usr/bin/env node
/**
 * getDiagnostics round trip for 1,000 diagnostics, agent to editor and back:
 * a real MCP SDK client over stdio (as Gemini CLI, Claude Code or Codex run it)
 * → `ide-companion mcp` (the real bin, its own process) → the companion over
 * loopback HTTP → the editor (an in-process EditorActions answering 1,000
 * diagnostics) → the companion filters and caps (500, most severe first) → back.
 *
 * The limit, measured in the same run: the same call made directly to the
 * companion (a real MCP SDK client over loopback HTTP with the bearer token),
 * i.e. what the proxy adds is `viaMcp - direct`. Also ide-companion mcp's start
 * to its first listed tools.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectClient, log, machine, ms, runBench, startCompanion } from './lib/common.mjs';
import { GetDiagnosticsTool } from '@ide-companion/protocol';

const DIAGNOSTICS = 1_000;
const WARMUP = 20;
const RUNS = 200;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'packages', 'cli', 'bin', 'ide-companion.js');

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { n: sorted.length, p50: ms(at(50)), p95: ms(at(95)), max: ms(sorted[sorted.length - 1]) };
}

function diagnosticsFor(file) {
  const severities = ['error', 'warning', 'information', 'hint'];
  return Array.from({ length: DIAGNOSTICS }, (_, i) => ({
    path: file,
    range: { start: { line: i + 1, character: 1 }, end: { line: i + 1, character: 20 } },
    severity: severities[i % 4],
    message: `'value${i}' is declared but its value is never read. (${'x'.repeat(i % 80)})`,
    source: 'ts',
    code: 6133,
  }));
}

async function timeCalls(call) {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    last = await call();
    samples.push(performance.now() - t0);
  }
  return { samples, last };
}

function check(result) {
  if (result.isError) throw new Error(`getDiagnostics failed: ${result.content[0]?.text}`);
  const parsed = JSON.parse(result.content[0].text);
  return { returned: parsed.diagnostics.length, truncated: parsed.truncated, bytes: Buffer.byteLength(result.content[0].text) };
}

runBench(async () => {
  let file;
  const editor = {
    showDiff() {},
    diffText() {
      return undefined;
    },
    closeDiff() {},
    getDiagnostics: () => ({ diagnostics: diagnosticsFor(file) }),
  };
  const c = await startCompanion({ editor });
  file = path.join(c.workspace, 'big.ts');
  fs.writeFileSync(file, 'export {};\n');
  const direct = await connectClient({ port: c.companion.port, token: c.companion.authToken });
  const env = { ...process.env, TMPDIR: c.tmp };
  for (const k of Object.keys(env)) if (k.startsWith('GEMINI_CLI_IDE_')) delete env[k];
  const agent = new Client({ name: 'bench-agent', version: '1' });
  try {
    const started = performance.now();
    await agent.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: c.workspace, env, stderr: 'ignore' }));
    const listed = (await agent.listTools()).tools.map((t) => t.name);
    const startToToolsMs = performance.now() - started;
    if (!listed.includes(GetDiagnosticsTool.name)) throw new Error(`ide-companion mcp lists ${listed.join(', ')}`);

    log(`direct: ${RUNS} calls`);
    const viaDirect = await timeCalls(() => direct.client.callTool({ name: GetDiagnosticsTool.name, arguments: {} }));
    log(`through ide-companion mcp: ${RUNS} calls`);
    const viaMcp = await timeCalls(() => agent.callTool({ name: GetDiagnosticsTool.name, arguments: {} }));
    const a = stats(viaMcp.samples);
    const d = stats(viaDirect.samples);
    return {
      diagnosticsFromEditor: DIAGNOSTICS,
      answer: check(viaMcp.last),
      sameAnswerAsDirect: viaMcp.last.content[0].text === viaDirect.last.content[0].text,
      viaMcpMs: a,
      directToCompanionMs: d,
      addedByMcpP50Ms: ms(a.p50 - d.p50),
      mcpStartToToolsMs: ms(startToToolsMs),
      machine: machine(),
    };
  } finally {
    await agent.close().catch(() => undefined);
    await direct.close().catch(() => undefined);
    await c.cleanup();
  }
});
