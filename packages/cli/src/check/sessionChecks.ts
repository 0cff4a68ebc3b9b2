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

export async function checkBadInput(run: CheckRun): Promise<void> {
  const { port, token } = run.target;
  const timeoutMs = run.timeouts.requestMs;
  let session: RawSession | undefined;
  try {
    session = await openRawSession(port, token, timeoutMs);
  } catch (err) {
    run.record.skip('session.malformedJson', `could not open a session to send it on: ${errorMessage(err)}`);
    run.record.skip('session.invalidMessage', `could not open a session to send it on: ${errorMessage(err)}`);
  }
  try {
    if (session) {
      await probeBadBody(run, 'session.malformedJson', session, '{"jsonrpc": "2.0", "id": 7, "method": ', 'a truncated JSON body');
      await probeBadBody(run, 'session.invalidMessage', session, '{"hello": "world"}', 'a JSON object that is no JSON-RPC message');
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

async function probeBadBody(run: CheckRun, id: CheckId, session: RawSession, body: string, what: string): Promise<void> {
  let res: RawResponse;
  try {
    res = await rawRequest({ method: 'POST', port: run.target.port, headers: session.headers(), body, timeoutMs: run.timeouts.requestMs });
  } catch (err) {
    run.record.fail(id, `${what} got no answer: ${errorMessage(err)}`);
    return;
  }
  const error = (res.json as { error?: { code?: unknown } } | undefined)?.error;
  const clear = res.status >= 400 && res.status < 500 && typeof error?.code === 'number';
  if (clear) run.record.pass(id, `${what}: ${describeRawResponse(res)} (code ${String(error?.code)})`);
  else if (res.status >= 500) run.record.warn(id, `${what}: ${describeRawResponse(res)}: a server error for a client's mistake`);
  else run.record.warn(id, `${what}: ${describeRawResponse(res)}, not a 4xx JSON-RPC error`);
}

export async function checkStillAnswering(run: CheckRun, session: CliLikeSession): Promise<void> {
  try {
    await session.client.ping({ timeout: run.timeouts.requestMs });
    run.record.pass('session.stillAnswering', 'ping answered');
  } catch (err) {
    run.record.fail('session.stillAnswering', `ping failed: ${describeCallError(err)}`);
  }
}
