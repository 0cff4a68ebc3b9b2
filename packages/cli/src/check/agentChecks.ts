/**
 * The other agents' faces of the companion under check (docs/agents.md):
 * each agent's lock file (lockFileChecks.ts) and the session its CLI opens;
 * Claude Code's and Amp's WebSockets in webSocketChecks.ts. A companion that
 * does not serve an agent (no lock file names it) has that agent's checks
 * skipped, never failed.
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpClientTransport } from '@ide-companion/client/httpTransport';
import { LOOPBACK_HOST, MCP_ENDPOINT_PATH, COPILOT_TOOLS, DROID_TOOLS, OpenDiffTool, CloseDiffTool } from '@ide-companion/protocol';
import { SOCKET_HOST } from '@ide-companion/server/companionSocket';
import { describeError } from '@ide-companion/server/logger';
import { probeCodex } from '@ide-companion/client/codexProbe';
import type { CheckRun } from './checkRun.js';
import { CliLikeSession } from './cliLikeSession.js';
import { namedFirstRoot } from './target.js';
import { checkLockFile, lockOf } from './lockFileChecks.js';
import { checkAmp, checkClaude } from './webSocketChecks.js';

export async function checkAgents(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  await checkQwen(run, env);
  await checkClaude(run, env);
  await checkCopilot(run, env);
  await checkCodex(run, env);
  await checkAmp(run, env);
  await checkDroid(run, env);
}

/**
 * Factory Droid's lock file (named by its face's own port) and a session on
 * that port as the CLI opens one (no token): the four tools it calls listed.
 */
async function checkDroid(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  const { record } = run;
  const lock = checkLockFile(run, lockOf('droid'), env);
  if (!lock) return;
  const port = Number(path.basename(lock.file, '.lock'));
  const transport = new HttpClientTransport(new URL(`http://${LOOPBACK_HOST}:${port}${MCP_ENDPOINT_PATH}`));
  const client = new Client({ name: 'ide-companion-check', version: '0' });
  try {
    const options = { timeout: run.timeouts.requestMs };
    await client.connect(transport, options);
    const tools = (await client.listTools(undefined, options)).tools.map((t) => t.name).sort();
    await transport.terminateSession().catch(() => undefined);
    // The diff tools always (the others where the editor has what they need), and nothing the CLI would offer its model unasked.
    const four: string[] = Object.values(DROID_TOOLS).sort();
    const extra = tools.filter((name) => !four.includes(name));
    if (tools.includes(DROID_TOOLS.openDiff) && tools.includes(DROID_TOOLS.closeDiff) && extra.length === 0)
      record.pass('agents.droid.session', `port ${port}: tools ${tools.join(', ')}`);
    else
      record.fail(
        'agents.droid.session',
        `port ${port}: tools/list is not among Droid's four (${four.join(', ')}) with openDiff and closeDiff: ${tools.join(', ')}`,
      );
  } catch (err) {
    record.fail('agents.droid.session', `port ${port} opened no session: ${describeError(err)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Codex CLI's socket (one per user, routed to every companion serving it):
 * the checks 0.171.0 makes, then its ide-context for the companion's first
 * folder. No socket: skipped (nobody serves Codex CLI here).
 */
async function checkCodex(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  const { record, target } = run;
  const root = namedFirstRoot(target);
  if (root === undefined) {
    record.skip('agents.codex.ideContext', 'the companion names no workspace folder to ask Codex context for');
    return;
  }
  const probe = await probeCodex(root, env, run.timeouts.requestMs);
  if (probe.state === 'absent') record.skip('agents.codex.ideContext', probe.detail);
  else if (probe.ok === true) record.pass('agents.codex.ideContext', `${probe.socketPath}: ${probe.detail}`);
  else record.fail('agents.codex.ideContext', `${probe.socketPath}: ${probe.detail}`);
}

async function checkCopilot(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  const { record } = run;
  const lock = checkLockFile(run, lockOf('copilot'), env);
  if (!lock) return;
  const json = lock.json;
  const socketPath = typeof json?.['socketPath'] === 'string' ? json['socketPath'] : undefined;
  const headers = typeof json?.['headers'] === 'object' && json['headers'] !== null ? (json['headers'] as Record<string, string>) : undefined;
  if (socketPath === undefined || headers === undefined) {
    record.fail('agents.copilot.session', 'the lock file names no socket or headers to connect with');
    return;
  }
  // The real SDK client over the lock file's socket with its headers, as Copilot CLI connects.
  const transport = new HttpClientTransport(new URL(`http://${SOCKET_HOST}${MCP_ENDPOINT_PATH}`), { socketPath, headers });
  const client = new Client({ name: 'ide-companion-check', version: '0' });
  try {
    const options = { timeout: run.timeouts.requestMs };
    await client.connect(transport, options);
    const tools = (await client.listTools(undefined, options)).tools.map((t) => t.name);
    // The session ends here, as a CLI leaving does.
    await transport.terminateSession().catch(() => undefined);
    if (tools.includes(COPILOT_TOOLS.openDiff) && tools.includes(COPILOT_TOOLS.closeDiff)) record.pass('agents.copilot.session', `tools: ${tools.join(', ')}`);
    else record.fail('agents.copilot.session', `tools/list lacks ${COPILOT_TOOLS.openDiff} or ${COPILOT_TOOLS.closeDiff}: ${tools.join(', ')}`);
  } catch (err) {
    record.fail('agents.copilot.session', `the lock file's socket and headers opened no session: ${describeError(err)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function checkQwen(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  const { record, target } = run;
  const lock = checkLockFile(run, lockOf('qwen'), env);
  if (!lock) return;
  const json = lock.json;
  if (typeof json?.['authToken'] !== 'string') {
    record.fail('agents.qwen.session', 'the lock file holds no token to connect with');
    return;
  }
  let session: CliLikeSession | undefined;
  try {
    session = await CliLikeSession.open({ label: 'qwen', port: target.port, token: json['authToken'], timeoutMs: run.timeouts.requestMs, notifications: [] });
    const tools = (await session.client.listTools(undefined, { timeout: run.timeouts.requestMs })).tools.map((t) => t.name);
    if (tools.includes(OpenDiffTool.name) && tools.includes(CloseDiffTool.name)) record.pass('agents.qwen.session', `tools: ${tools.join(', ')}`);
    else record.fail('agents.qwen.session', `tools/list lacks openDiff or closeDiff: ${tools.join(', ')}`);
  } catch (err) {
    record.fail('agents.qwen.session', `the lock file's token opened no session: ${describeError(err)}`);
  } finally {
    await session?.close();
  }
}
