/**
 * Bad input must get a clear error and change nothing: a body that is not
 * JSON, JSON that is not JSON-RPC, an unknown session id; afterwards the
 * first session must still answer (the CLI does not reconnect by itself).
 */
import { randomUUID } from 'node:crypto';
import type { CheckRun } from './checkRun.js';
import { describeCallError, type CliLikeSession } from './cliLikeSession.js';
import { describeRawResponse, errorMessage, rawRequest, type RawResponse } from './rawHttp.js';
import { openRawSession, postHeaders, sessionHeaders, type RawSession } from './rawSession.js';
import type { CheckId } from './catalogue.js';
import { OpenDiffTool } from '@ide-companion/protocol';

export async function checkBadInput(run: CheckRun): Promise<void> {
  const { port, token } = run.target;
  const timeoutMs = run.timeouts.requestMs;
  let session: RawSession | undefined;
  try {
    session = await openRawSession(port, token, timeoutMs);
  } catch (err) {
    for (const id of ['session.malformedJson', 'session.invalidMessage', 'session.emptyBatch', 'session.unknownTool', 'session.toolCallParams'] as const) {
      run.record.skip(id, `could not open a session to send it on: ${errorMessage(err)}`);
    }
  }
  try {
    if (session) {
      await probeBadBody(run, 'session.malformedJson', session, '{"jsonrpc": "2.0", "id": 7, "method": ', 'a truncated JSON body', -32700);
      await probeBadBody(run, 'session.invalidMessage', session, '{"hello": "world"}', 'a JSON object that is no JSON-RPC message', -32600);
      await probeBadBody(run, 'session.emptyBatch', session, '[]', 'an empty batch', -32600);
      await probeToolCallErrors(run, 'session.unknownTool', session, [[{ name: 'ide-companion-check-no-such-tool', arguments: {} }, 'an unknown tool']]);
      await probeToolCallErrors(run, 'session.toolCallParams', session, [
        [undefined, 'tools/call without params'],
        [{ name: OpenDiffTool.name, arguments: [] }, 'tools/call with array arguments'],
      ]);
    }
  } finally {
    await session?.close();
  }

  try {
    const res = await rawRequest({
      method: 'POST',
      port,
      headers: { ...postHeaders(token), ...sessionHeaders(randomUUID()) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
      timeoutMs,
    });
    if (res.status === 404) run.record.pass('session.unknownSession', describeRawResponse(res));
    else if (res.status >= 400 && res.status < 500)
      run.record.warn('session.unknownSession', `${describeRawResponse(res)}; MCP asks for 404, which tells clients to start a new session`);
    else run.record.fail('session.unknownSession', `${describeRawResponse(res)} for a session id that was never issued`);
  } catch (err) {
    run.record.fail('session.unknownSession', `no answer: ${errorMessage(err)}`);
  }
}

/** `body` POSTed in `session`; undefined, with `id` failed, when no answer came. */
async function postInSession(run: CheckRun, id: CheckId, session: RawSession, body: string, what: string): Promise<RawResponse | undefined> {
  try {
    return await rawRequest({ method: 'POST', port: run.target.port, headers: session.headers(), body, timeoutMs: run.timeouts.requestMs });
  } catch (err) {
    run.record.fail(id, `${what} got no answer: ${errorMessage(err)}`);
    return undefined;
  }
}

/** A body the companion must refuse with a 4xx JSON-RPC error, `expected` its code (JSON-RPC 2.0); another code or a 2xx: warn. */
async function probeBadBody(run: CheckRun, id: CheckId, session: RawSession, body: string, what: string, expected: number): Promise<void> {
  const res = await postInSession(run, id, session, body, what);
  if (!res) return;
  const error = (res.json as { error?: { code?: unknown } } | undefined)?.error;
  const clear = res.status >= 400 && res.status < 500 && typeof error?.code === 'number';
  if (clear && error?.code === expected) run.record.pass(id, `${what}: ${describeRawResponse(res)} (code ${String(error?.code)})`);
  else if (clear) run.record.warn(id, `${what}: ${describeRawResponse(res)} (code ${String(error?.code)}; JSON-RPC 2.0 says ${expected})`);
  else if (res.status >= 500) run.record.warn(id, `${what}: ${describeRawResponse(res)}: a server error for a client's mistake`);
  else run.record.warn(id, `${what}: ${describeRawResponse(res)}, not a 4xx JSON-RPC error`);
}

/**
 * tools/call requests MCP answers with JSON-RPC -32602: each must get that
 * error; an `isError` result or another code is a warning, no answer a failure.
 */
async function probeToolCallErrors(run: CheckRun, id: CheckId, session: RawSession, calls: Array<[params: unknown, what: string]>): Promise<void> {
  const warnings: string[] = [];
  const passed: string[] = [];
  for (const [i, [params, what]] of calls.entries()) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: `check-${i}`, method: 'tools/call', ...(params !== undefined && { params }) });
    const res = await postInSession(run, id, session, body, what);
    if (!res) return;
    const answer = res.json as { error?: { code?: unknown }; result?: { isError?: unknown } } | undefined;
    if (answer?.error?.code === -32602) passed.push(`${what}: -32602`);
    else if (answer?.result?.isError === true) warnings.push(`${what}: a result with isError, not JSON-RPC error -32602`);
    else if (typeof answer?.error?.code === 'number') warnings.push(`${what}: code ${answer.error.code}, not -32602`);
    else warnings.push(`${what}: ${describeRawResponse(res)}, not JSON-RPC error -32602`);
  }
  if (warnings.length > 0) run.record.warn(id, warnings.join('; '));
  else run.record.pass(id, passed.join('; '));
}

export async function checkStillAnswering(run: CheckRun, session: CliLikeSession): Promise<void> {
  try {
    await session.client.ping({ timeout: run.timeouts.requestMs });
    run.record.pass('session.stillAnswering', 'ping answered');
  } catch (err) {
    run.record.fail('session.stillAnswering', `ping failed: ${describeCallError(err)}`);
  }
}
