/**
 * Our client and the real Gemini CLI's IdeClient (0.61.0), run from the same
 * folder against the same companions, must reach the same verdict: connected to
 * the same companion (seen by the context each receives), or disconnected with
 * the same message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, RealIdeClient, skipUnless } from '@ide-companion/testkit';
import { CompanionClient, buildStatus } from '../src/index.js';
import { cleanEnv, startCompanion, writeFile } from './helpers.js';

const cli = findGeminiCli();
const skip = skipUnless(!!cli, 'the pinned Gemini CLI', 'run scripts/install-gemini-cli.sh');

interface Verdict {
  status: string;
  details?: string;
  ide?: string | null;
  contextPath?: string | null;
}

/** The real IdeClient in a child (async: the companions live in this process and must answer). */
async function realVerdict(tmp: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Verdict> {
  const client = await RealIdeClient.start(cli!, { cwd, env: { ...env, TMPDIR: tmp } });
  try {
    const { status, details, ide } = await client.connect();
    // Connected: the context it receives within 5 s, as ourVerdict waits for it.
    const pushed =
      status === 'connected' ? await client.waitFor((e) => e.event === 'context' && !!e['context'], 'a context', 5_000).catch(() => undefined) : undefined;
    return { status, ...(details === undefined ? {} : { details }), ide, contextPath: pushed?.['context']?.workspaceState?.openFiles?.[0]?.path ?? null };
  } finally {
    await client.stop();
  }
}

async function ourVerdict(tmp: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Verdict> {
  const client = new CompanionClient({ cwd, env, tmpdir: tmp, reconnect: false, heartbeatMs: 0, wellKnownPorts: false });
  try {
    const ok = await client.connect();
    const ctx = ok ? await client.waitForContext(5_000) : undefined;
    return {
      status: client.status.status,
      details: client.status.details,
      ide: client.ideInfo?.displayName ?? null,
      contextPath: ctx?.workspaceState?.openFiles?.[0]?.path ?? null,
    };
  } finally {
    await client.stop();
  }
}

test('interop: both connect to the same companion when two serve the workspace', { skip }, async () => {
  // Two live companions for one folder, named after two live PIDs: the higher PID wins in both.
  const a = await startCompanion({ idePid: process.pid });
  const b = await startCompanion({ tmp: a.tmp, workspace: a.workspace, idePid: process.ppid, ideInfo: { name: 'other', displayName: 'Other IDE' } });
  try {
    a.companion.context.focus(writeFile(a.workspace, 'from-a.ts', ''));
    b.companion.context.focus(writeFile(a.workspace, 'from-b.ts', ''));
    const env = cleanEnv({ GEMINI_CLI_IDE_PID: '999999' });
    const [ours, real] = [await ourVerdict(a.tmp, a.workspace, env), await realVerdict(a.tmp, a.workspace, env)];
    assert.equal(real.status, 'connected', JSON.stringify(real));
    assert.deepEqual(ours, { ...real, details: undefined });
    const expected = process.pid > process.ppid ? 'from-a.ts' : 'from-b.ts';
    assert.equal(path.basename(ours.contextPath!), expected);
    // GEMINI_CLI_IDE_SERVER_PORT turns the choice around, in both.
    const other = expected === 'from-a.ts' ? b.companion.port : a.companion.port;
    const env2 = { ...env, GEMINI_CLI_IDE_SERVER_PORT: String(other) };
    const [ours2, real2] = [await ourVerdict(a.tmp, a.workspace, env2), await realVerdict(a.tmp, a.workspace, env2)];
    assert.equal(real2.contextPath, ours2.contextPath);
    assert.notEqual(path.basename(ours2.contextPath!), expected);
  } finally {
    await b.companion.stop();
    await a.cleanup();
  }
});

test('interop: from a folder outside the workspace both refuse with the same message', { skip }, async () => {
  const h = await startCompanion();
  try {
    const outside = path.join(h.tmp, 'outside');
    fs.mkdirSync(outside);
    const [ours, real] = [await ourVerdict(h.tmp, outside, h.env), await realVerdict(h.tmp, outside, h.env)];
    assert.equal(real.status, 'disconnected');
    assert.deepEqual(ours, real);
    assert.match(ours.details!, /^Directory mismatch/);
  } finally {
    await h.cleanup();
  }
});

test('interop: a companion without a workspace folder gets the same "open a folder" message', { skip }, async () => {
  const h = await startCompanion({ workspaceRoots: [] });
  try {
    const [ours, real] = [await ourVerdict(h.tmp, h.workspace, h.env), await realVerdict(h.tmp, h.workspace, h.env)];
    assert.equal(real.status, 'disconnected');
    assert.deepEqual(ours, real);
  } finally {
    await h.cleanup();
  }
});

test('interop: no companion in a VS Code terminal gives the same message', { skip }, async () => {
  const h = await startCompanion();
  await h.companion.stop();
  try {
    const env = cleanEnv({ TERM_PROGRAM: 'vscode' });
    const [ours, real] = [await ourVerdict(h.tmp, h.workspace, env), await realVerdict(h.tmp, h.workspace, env)];
    assert.equal(real.status, 'disconnected');
    assert.equal(ours.details, real.details);
  } finally {
    await h.cleanup();
  }
});

test('interop: env vars only, in a plain terminal: the real CLI refuses, ours connects and says what gemini would show', { skip }, async () => {
  const h = await startCompanion();
  try {
    fs.rmSync(h.companion.discoveryFilePath!);
    const env = cleanEnv({
      GEMINI_CLI_IDE_SERVER_PORT: String(h.companion.port),
      GEMINI_CLI_IDE_WORKSPACE_PATH: h.workspace,
      GEMINI_CLI_IDE_AUTH_TOKEN: h.companion.authToken,
    });
    delete env['TERM_PROGRAM'];
    const real = await realVerdict(h.tmp, h.workspace, env);
    assert.equal(real.status, 'disconnected');
    const client = new CompanionClient({ cwd: h.workspace, env, tmpdir: h.tmp, reconnect: false, heartbeatMs: 0, wellKnownPorts: false });
    try {
      assert.ok(await client.connect());
      assert.equal(client.target?.kind === 'http' && client.target.source, 'env');
      // The real /ide status keeps its first "disabled" details; the reason goes to its log.
      assert.equal(buildStatus(client).geminiCli?.status, `🔴 Disconnected: ${real.details}`);
      assert.match(buildStatus(client).geminiCli?.reason ?? '', /not supported in your current environment/);
    } finally {
      await client.stop();
    }
    // In a VS Code terminal the real CLI connects the same way.
    const vscode = await realVerdict(h.tmp, h.workspace, { ...env, TERM_PROGRAM: 'vscode' });
    assert.equal(vscode.status, 'connected');
  } finally {
    await h.cleanup();
  }
});
