/**
 * The WebSocket faces under check (faces/webSocketFace.ts): Amp's and Claude Code's sessions as their CLIs open
 * them, and their upgrades' refusals.
 */
import { AMP_AUTH_QUERY, CLAUDE_AUTH_HEADER, CLAUDE_SUBPROTOCOL, LOOPBACK_HOST, CLAUDE_TOOLS, AMP_REQUEST } from '@ide-companion/protocol';
import { CHECK_PROBE_HEADER, checkProbeProof } from '@ide-companion/server/http/checkProbe';
import { describeError } from '@ide-companion/server/logger';
import type { CheckRun } from './checkRun.js';
import { checkLockFile, lockOf } from './lockFileChecks.js';

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

/** Amp's lock file, a session that answers ping and authenticate as amp.nvim does, and the upgrade's refusals. */
export async function checkAmp(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
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
        if (answer.id === 'check-1' && answer.ping?.message === 'check') got.push(AMP_REQUEST.ping);
        if (answer.id === 'check-2' && answer.authenticate?.authenticated === true) got.push(AMP_REQUEST.authenticate);
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

export async function checkClaude(run: CheckRun, env: NodeJS.ProcessEnv): Promise<void> {
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
    if (tools.includes(CLAUDE_TOOLS.openDiff) && tools.includes(CLAUDE_TOOLS.closeTab)) record.pass('agents.claude.session', `tools: ${tools.join(', ')}`);
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
