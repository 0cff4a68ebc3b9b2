/**
 * The other agents' faces of the companion under check (docs/agents.md):
 * Qwen Code's lock file and the session its token opens, Claude Code's lock
 * file and WebSocket, and the upgrade's refusals. A companion that does not
 * serve an agent (no lock file names its port) has that agent's checks
 * skipped, never failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpClientTransport } from '@ide-companion/client/httpTransport';
import { AGENT_LOCKS, AMP_AUTH_QUERY, CLAUDE_AUTH_HEADER, CLAUDE_SUBPROTOCOL, LOOPBACK_HOST, MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import type { AgentLockContract } from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES, ampIdeDir, claudeIdeDir, copilotIdeDir, droidIdeDir, qwenIdeDir } from '@ide-companion/shared/agentPaths';
import { parseAnyDiscoveryFileName } from '@ide-companion/client/discoveryFiles';
import { SOCKET_HOST } from '@ide-companion/server/companionSocket';
import { CHECK_PROBE_HEADER, checkProbeProof } from '@ide-companion/server/http/checkProbe';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { describeError } from '@ide-companion/server/logger';
import { probeCodex } from '@ide-companion/client/codexProbe';
import type { CheckId } from './catalogue.js';
import type { CheckRun } from './checkRun.js';
import { CliLikeSession } from './cliLikeSession.js';
import { namedFirstRoot } from './target.js';

interface LockRead {
  file: string;
  json?: Record<string, unknown>;
}

/** Where each agent's lock files are, and the checks that need its file (skipped, never failed, without one). */
const LOCK_PLACES: Readonly<Record<AgentLockContract['agent'], { dir: (env: NodeJS.ProcessEnv) => string; ids: readonly CheckId[] }>> = {
  qwen: { dir: qwenIdeDir, ids: ['agents.qwen.lockFile', 'agents.qwen.session'] },
  copilot: { dir: copilotIdeDir, ids: ['agents.copilot.lockFile', 'agents.copilot.session'] },
  droid: { dir: droidIdeDir, ids: ['agents.droid.lockFile', 'agents.droid.session'] },
  amp: { dir: ampIdeDir, ids: ['agents.amp.lockFile', 'agents.amp.session', 'agents.amp.refusals'] },
  claude: {
    dir: claudeIdeDir,
    ids: ['agents.claude.lockFile', 'agents.claude.session', 'agents.claude.refusals', 'agents.claude.handshake', 'agents.claude.lifecycle'],
  },
};

/** What the agent's CLI needs of the file beyond its schema. */
const LOCK_EXTRAS: Partial<Record<AgentLockContract['agent'], (json: Record<string, unknown>) => string | undefined>> = {
  copilot: (json) => (fs.existsSync(json['socketPath'] as string) ? undefined : `names no socket that exists (${String(json['socketPath'])})`),
};

/**
 * The agent's lock file naming the companion's port, checked against the
 * agent's own contract (protocol's AGENT_LOCKS: schema, liveness field, port):
 * one check for every agent. Without a file the companion does not serve the
 * agent: its checks are skipped, never failed. The file's JSON is returned
 * even when it failed, for the session checks to try its token.
 */
function checkLockFile(run: CheckRun, contract: AgentLockContract, env: NodeJS.ProcessEnv): LockRead | undefined {
  const { record, target } = run;
  const { dir, ids } = LOCK_PLACES[contract.agent];
  const name = AGENT_DISPLAY_NAMES[contract.agent];
  const file = contract.ownPort ? lockNamingIde(dir(env), target.discoveryFile) : path.join(dir(env), contract.fileName(target.port));
  if (file === undefined || !fs.existsSync(file)) {
    const why = contract.ownPort
      ? `no ${name} lock file in ${dir(env)} names this companion's IDE: this companion does not serve ${name}`
      : `no ${name} lock file names port ${target.port} in ${dir(env)}: this companion does not serve ${name}`;
    for (const id of ids) record.skip(id, why);
    return undefined;
  }
  const lockFileId = ids[0]!;
  let json: Record<string, unknown> | undefined;
  let problem: string | undefined;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    problem = `does not parse: ${describeError(err)}`;
  }
  if (json !== undefined) {
    const parsed = contract.schema.safeParse(json);
    const pid = json[contract.pidField];
    problem =
      (parsed.success ? undefined : `is not what ${name} reads (${schemaIssues(parsed.error)}): ${contract.refusal}`) ??
      modeProblem(file) ??
      (contract.namesPort && json['port'] !== target.port ? `names port ${String(json['port'])}, not ${target.port}` : undefined) ??
      (typeof pid !== 'number' || !isProcessAlive(pid) ? `its ${contract.pidField} ${String(pid)} is not running: ${contract.refusal}` : undefined) ??
      LOCK_EXTRAS[contract.agent]?.(json);
  }
  if (problem) record.fail(lockFileId, `${file} ${problem}`);
  else {
    const port = contract.namesPort ? `port ${target.port}, ` : '';
    record.pass(lockFileId, `${file}: private, ${port}${contract.pidField} ${String(json![contract.pidField])} running`);
  }
  return { file, json };
}

/**
 * The lock file of a face with a port of its own (Factory Droid's, named by
 * that port): the one whose pid is the IDE's the discovery file names.
 */
function lockNamingIde(dir: string, discoveryFile: string | undefined): string | undefined {
  const pid = discoveryFile === undefined ? undefined : parseAnyDiscoveryFileName(path.basename(discoveryFile))?.pid;
  if (pid === undefined) return undefined;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /^\d+\.lock$/.test(n));
  } catch {
    return undefined;
  }
  for (const n of names.slice(0, 256)) {
    try {
      if ((JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as { pid?: unknown }).pid === pid) return path.join(dir, n);
    } catch {
      // Not a lock file of ours to judge.
    }
  }
  return undefined;
}

/** A schema's issues as one short phrase: each field's path and message. */
function schemaIssues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'the file'}: ${issue.message}`)
    .join('; ');
}

const lockOf = (agent: AgentLockContract['agent']): AgentLockContract => AGENT_LOCKS.find((c) => c.agent === agent)!;

/** What is wrong with a lock file's place and modes, or undefined. */
function modeProblem(file: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const fileMode = fs.statSync(file).mode & 0o777;
  const dirMode = fs.statSync(path.dirname(file)).mode & 0o777;
  if (fileMode & 0o077) return `${file} is readable by others (mode ${fileMode.toString(8)}): its token is exposed`;
  if (dirMode & 0o077) return `${path.dirname(file)} is open to others (mode ${dirMode.toString(8)})`;
  return undefined;
}

/**
 * The HTTP status a WebSocket upgrade to `url` got: 101 when it was accepted (then closed), or why it never answered.
 * Marked as check's (a proof under the token): the companion's log tells these probes from an attack.
 */
async function upgradeStatus(run: CheckRun, token: string, url: string, headers: Record<string, string>, protocols: string[] = []): Promise<number | string> {
  const { default: WebSocket } = await import('ws');
  return new Promise((resolve) => {
    const marked = { [CHECK_PROBE_HEADER]: checkProbeProof(token), ...headers };
    const socket = new WebSocket(url, protocols, { headers: marked, handshakeTimeout: run.timeouts.connectMs });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', (err) => resolve(describeError(err)));
  });
}

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
    const four = ['closeDiff', 'getIdeDiagnostics', 'openDiff', 'openFile'];
    const extra = tools.filter((name) => !four.includes(name));
    if (tools.includes('openDiff') && tools.includes('closeDiff') && extra.length === 0)
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

/** Amp's lock file, a session that answers ping and authenticate as amp.nvim does, and the upgrade's refusals. */
async function checkAmp(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  const { record, target } = run;
  const lock = checkLockFile(run, lockOf('amp'), env);
  if (!lock) return;
  const json = lock.json;
  const token = typeof json?.['authToken'] === 'string' ? json['authToken'] : undefined;
  if (!token) {
    record.fail('agents.amp.session', 'the lock file holds no token to connect with');
    record.skip('agents.amp.refusals', 'no token to compare against');
    return;
  }
  const { default: WebSocket } = await import('ws');
  const url = (auth: string) => `ws://${LOOPBACK_HOST}:${target.port}/?${AMP_AUTH_QUERY}=${encodeURIComponent(auth)}`;
  // The session: ping and authenticate, each answered under its id.
  try {
    const answers = await new Promise<string[]>((resolve, reject) => {
      const socket = new WebSocket(url(token), { handshakeTimeout: run.timeouts.connectMs });
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`no answer within ${run.timeouts.requestMs} ms`));
      }, run.timeouts.requestMs);
      const got: string[] = [];
      socket.once('open', () => {
        socket.send(JSON.stringify({ clientRequest: { id: 'check-1', ping: { message: 'check' } } }));
        socket.send(JSON.stringify({ clientRequest: { id: 'check-2', authenticate: {} } }));
      });
      socket.on('message', (data) => {
        const answer = (
          JSON.parse(data.toString()) as {
            serverResponse?: { id?: unknown; error?: { message?: string }; ping?: { message?: string }; authenticate?: { authenticated?: boolean } };
          }
        ).serverResponse;
        if (!answer) return;
        if (answer.error) return reject(new Error(String(answer.error.message)));
        if (answer.id === 'check-1' && answer.ping?.message === 'check') got.push('ping');
        if (answer.id === 'check-2' && answer.authenticate?.authenticated === true) got.push('authenticate');
        if (got.length === 2) {
          clearTimeout(timer);
          socket.close();
          resolve(got);
        }
      });
      socket.once('unexpected-response', (_req, res) => reject(new Error(`the upgrade got HTTP ${res.statusCode}`)));
      socket.once('error', reject);
    });
    record.pass('agents.amp.session', `answered ${answers.join(' and ')}`);
  } catch (err) {
    record.fail('agents.amp.session', `no Amp session: ${describeError(err)}`);
  }
  const upgrade = (auth: string, headers: Record<string, string>): Promise<number | string> => upgradeStatus(run, token, url(auth), headers);
  const wrong = token.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
  const probes: Array<[string, string, Record<string, string>]> = [
    ['an empty token', '', {}],
    ['a wrong token', wrong, {}],
    ['Origin: http://evil.example', token, { Origin: 'http://evil.example' }],
    ['a foreign Host', token, { Host: `evil.example:${target.port}` }],
  ];
  const accepted: string[] = [];
  for (const [what, auth, headers] of probes) if ((await upgrade(auth, headers)) === 101) accepted.push(what);
  if (accepted.length === 0) record.pass('agents.amp.refusals', 'refused with an empty or wrong token, with an Origin and with a foreign Host');
  else record.fail('agents.amp.refusals', `the upgrade was accepted with ${accepted.join(', ')}: a web page (or anyone on this machine) can drive the editor`);
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
    if (tools.includes('open_diff') && tools.includes('close_diff')) record.pass('agents.copilot.session', `tools: ${tools.join(', ')}`);
    else record.fail('agents.copilot.session', `tools/list lacks open_diff or close_diff: ${tools.join(', ')}`);
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
    if (tools.includes('openDiff') && tools.includes('closeDiff')) record.pass('agents.qwen.session', `tools: ${tools.join(', ')}`);
    else record.fail('agents.qwen.session', `tools/list lacks openDiff or closeDiff: ${tools.join(', ')}`);
  } catch (err) {
    record.fail('agents.qwen.session', `the lock file's token opened no session: ${describeError(err)}`);
  } finally {
    await session?.close();
  }
}

async function checkClaude(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
  const { record, target } = run;
  const lock = checkLockFile(run, lockOf('claude'), env);
  if (!lock) return;
  const json = lock.json;
  const token = typeof json?.['authToken'] === 'string' ? json['authToken'] : undefined;
  if (!token) {
    record.fail('agents.claude.session', 'the lock file holds no token to connect with');
    for (const id of ['agents.claude.refusals', 'agents.claude.handshake', 'agents.claude.lifecycle'] as const) record.skip(id, 'no token to compare against');
    return;
  }
  const { default: WebSocket } = await import('ws');
  const url = `ws://${LOOPBACK_HOST}:${target.port}`;
  const upgrade = (headers: Record<string, string>, path = '', protocols: string[] = [CLAUDE_SUBPROTOCOL]): Promise<number | string> =>
    upgradeStatus(run, token, `${url}${path}`, headers, protocols);

  // The session: initialize, initialized, tools/list, as Claude Code does.
  try {
    const tools = await new Promise<string[]>((resolve, reject) => {
      const socket = new WebSocket(url, [CLAUDE_SUBPROTOCOL], { headers: { [CLAUDE_AUTH_HEADER]: token }, handshakeTimeout: run.timeouts.connectMs });
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`no answer within ${run.timeouts.requestMs} ms`));
      }, run.timeouts.requestMs);
      const send = (message: object) => socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
      socket.once('open', () =>
        send({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ide-companion-check', version: '1' } },
        }),
      );
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { id?: number; result?: { tools?: Array<{ name: string }> }; error?: { message: string } };
        if (message.error) return reject(new Error(message.error.message));
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          clearTimeout(timer);
          socket.close();
          resolve((message.result?.tools ?? []).map((t) => t.name));
        }
      });
      socket.once('unexpected-response', (_req, res) => reject(new Error(`the upgrade got HTTP ${res.statusCode}`)));
      socket.once('error', reject);
    });
    if (tools.includes('openDiff') && tools.includes('close_tab')) record.pass('agents.claude.session', `tools: ${tools.join(', ')}`);
    else record.fail('agents.claude.session', `tools/list lacks openDiff or close_tab: ${tools.join(', ')}`);
  } catch (err) {
    record.fail('agents.claude.session', `no Claude Code session: ${describeError(err)}`);
  }

  const wrong = token.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
  const probes: Array<[string, Record<string, string>]> = [
    ['no token', {}],
    ['a wrong token', { [CLAUDE_AUTH_HEADER]: wrong }],
    ['Origin: http://evil.example', { [CLAUDE_AUTH_HEADER]: token, Origin: 'http://evil.example' }],
    ['a foreign Host', { [CLAUDE_AUTH_HEADER]: token, Host: `evil.example:${target.port}` }],
  ];
  const accepted: string[] = [];
  for (const [what, headers] of probes) if ((await upgrade(headers)) === 101) accepted.push(what);
  if (accepted.length === 0) record.pass('agents.claude.refusals', 'refused without the token, with a wrong one, with an Origin and with a foreign Host');
  else
    record.fail('agents.claude.refusals', `the upgrade was accepted with ${accepted.join(', ')}: a web page (or anyone on this machine) can drive the editor`);

  // Where and how Claude Code dials (`ws://HOST:PORT`, subprotocol mcp; opencode with none): anything else is neither.
  const offTarget: string[] = [];
  for (const [what, path, protocols] of [
    ['the subprotocol "not-mcp"', '', ['not-mcp']],
    ['the path /elsewhere', '/elsewhere', [CLAUDE_SUBPROTOCOL]],
  ] as const) {
    if ((await upgrade({ [CLAUDE_AUTH_HEADER]: token }, path, [...protocols])) === 101) offTarget.push(what);
  }
  if (offTarget.length === 0) record.pass('agents.claude.handshake', 'refused with a subprotocol other than mcp, and on another path');
  else record.warn('agents.claude.handshake', `the upgrade was accepted with ${offTarget.join(', ')}: only / with the subprotocol mcp is Claude Code`);

  await checkClaudeLifecycle(run, url, token);
}

/**
 * The MCP lifecycle on Claude's WebSocket: a request before initialize gets an
 * error, a second initialize gets one, and nothing is notified before the
 * client's `notifications/initialized`. Each lapse is a warning.
 */
async function checkClaudeLifecycle(run: CheckRun, url: string, token: string): Promise<void> {
  const { record } = run;
  const { default: WebSocket } = await import('ws');
  try {
    const lapses = await new Promise<string[]>((resolve, reject) => {
      const socket = new WebSocket(url, [CLAUDE_SUBPROTOCOL], { headers: { [CLAUDE_AUTH_HEADER]: token }, handshakeTimeout: run.timeouts.connectMs });
      const found: string[] = [];
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`no answer within ${run.timeouts.requestMs} ms`));
      }, run.timeouts.requestMs);
      const send = (message: object) => socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
      const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ide-companion-check', version: '1' } };
      socket.once('open', () => {
        send({ id: 'early', method: 'tools/list' });
        send({ id: 1, method: 'initialize', params: initialize });
      });
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { id?: unknown; method?: string; result?: unknown; error?: unknown };
        if (message.method !== undefined && message.id === undefined) found.push(`${message.method} notified before initialized`);
        else if (message.id === 'early' && message.result !== undefined) found.push('tools/list answered before initialize');
        else if (message.id === 1) send({ id: 2, method: 'initialize', params: initialize });
        else if (message.id === 2) {
          if (message.result !== undefined) found.push('a second initialize accepted');
          clearTimeout(timer);
          socket.close();
          resolve(found);
        }
      });
      socket.once('unexpected-response', (_req, res) => reject(new Error(`the upgrade got HTTP ${res.statusCode}`)));
      socket.once('error', reject);
    });
    if (lapses.length === 0)
      record.pass('agents.claude.lifecycle', 'a request before initialize and a second initialize refused; nothing notified before initialized');
    else record.warn('agents.claude.lifecycle', `${lapses.join('; ')} (MCP lifecycle)`);
  } catch (err) {
    record.fail('agents.claude.lifecycle', `no Claude Code session: ${describeError(err)}`);
  }
}
