/**
 * Security: the token on every request and method, Host and Origin refused,
 * no wildcard CORS, loopback only, a strong token (spec §I.2 Authentication,
 * MCP's Streamable HTTP security warning, interop-notes Pitfalls).
 * The token itself never appears in a reason.
 */
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import type { CheckRun } from './checkRun.js';
import type { CliLikeSession } from './cliLikeSession.js';
import { canConnect, errorMessage, rawRequest, type RawResponse } from './rawHttp.js';
import { closeIfSessionCreated, initializeBody, openRawSession, postHeaders, sessionHeaders, type RawSession } from './rawSession.js';
import type { CheckId } from './catalogue.js';

const FOREIGN_ORIGIN = 'http://evil.example';

export async function checkSecurity(run: CheckRun, session: CliLikeSession | undefined): Promise<void> {
  await checkInterfaces(run);
  checkTokenStrength(run);
  if (!session) {
    // Every other probe compares against a request the companion accepts: without a working token there is none.
    run.record.skipRemaining('initialize with the token failed (see transport.initialize)', ['security']);
    return;
  }
  const token = run.target.token;
  const sameLengthRandom = randomBytes(Math.ceil(token.length / 2))
    .toString('hex')
    .slice(0, token.length);
  await checkAuthVariants(run, 'security.auth.missing', [{ label: 'no Authorization header', header: undefined }]);
  await checkAuthVariants(run, 'security.auth.wrong', [
    { label: 'a random token of the same length', header: `Bearer ${sameLengthRandom === token ? `x${sameLengthRandom.slice(1)}` : sameLengthRandom}` },
    { label: 'the token plus one character', header: `Bearer ${token}0` },
    { label: 'the token without its last character', header: `Bearer ${token.slice(0, -1)}` },
  ]);
  await checkAuthVariants(run, 'security.auth.malformed', [
    { label: '"Basic <token>"', header: `Basic ${token}` },
    { label: 'the bare token without "Bearer"', header: token },
    { label: '"Bearer" with no token', header: 'Bearer' },
  ]);
  await checkSchemeCase(run);
  const origins = await checkHostAndOrigin(run);
  await checkCors(run, session, origins);
}

interface AuthVariant {
  label: string;
  header: string | undefined;
}

/** Sends each variant on POST (initialize), GET (the stream) and DELETE (a session of its own); 401 expected. */
async function checkAuthVariants(run: CheckRun, id: CheckId, variants: AuthVariant[]): Promise<void> {
  const { port, token } = run.target;
  const timeoutMs = run.timeouts.requestMs;
  // Per header value, the methods that were not refused with 401: "POST 200".
  const offenders = new Map<string, string[]>();
  const not401 = new Map<string, string[]>();
  const note = (map: Map<string, string[]>, label: string, entry: string) => map.set(label, [...(map.get(label) ?? []), entry]);
  let sessionProblem: string | undefined;
  let session: RawSession | undefined;
  const ofSession = async (): Promise<Record<string, string>> => {
    if (!session && !sessionProblem) {
      try {
        session = await openRawSession(port, token, timeoutMs);
      } catch (err) {
        sessionProblem = errorMessage(err);
      }
    }
    return session ? sessionHeaders(session.id) : {};
  };
  const auth = (v: AuthVariant): Record<string, string> => (v.header === undefined ? {} : { Authorization: v.header });
  const judge = (method: string, v: AuthVariant, res: RawResponse | Error) => {
    if (res instanceof Error) note(offenders, v.label, `${method} ${errorMessage(res)}`);
    else if (res.status === 403) note(not401, v.label, `${method} 403`);
    else if (res.status !== 401) note(offenders, v.label, `${method} ${res.status}`);
  };
  const list = (map: Map<string, string[]>) => [...map].map(([label, entries]) => `${label}: ${entries.join(', ')}`).join('; ');
  try {
    for (const v of variants) {
      const post = await probeInitialize(run, { ...postHeaders(), ...auth(v) }, 'ide-companion-check-auth-probe').catch((e: Error) => e);
      judge('POST', v, post);

      const get = await rawRequest({
        method: 'GET',
        port,
        headers: { Accept: 'text/event-stream', ...(await ofSession()), ...auth(v) },
        timeoutMs,
        headersOnly: true,
      }).catch((e: Error) => e);
      judge('GET', v, get);

      const del = await rawRequest({ method: 'DELETE', port, headers: { ...(await ofSession()), ...auth(v) }, timeoutMs }).catch((e: Error) => e);
      judge('DELETE', v, del);
      if (!(del instanceof Error) && del.status >= 200 && del.status < 300) session = undefined; // that DELETE ended it
    }
  } finally {
    await (session as RawSession | undefined)?.close();
  }
  const caveat = sessionProblem ? ` (GET/DELETE sent without a session: ${sessionProblem})` : '';
  if (offenders.size > 0) run.record.fail(id, `let in (HTTP status per method): ${list(offenders)}${caveat}`);
  else if (not401.size > 0) run.record.warn(id, `refused, but with 403 instead of 401: ${list(not401)}${caveat}`);
  else run.record.pass(id, `401 on POST, GET and DELETE for ${variants.map((v) => v.label).join(', ')}${caveat}`);
}

/** An initialize sent with `headers`; a session it wrongly creates is ended again with the real token. */
async function probeInitialize(run: CheckRun, headers: Record<string, string>, clientName: string): Promise<RawResponse> {
  const { port, token } = run.target;
  const res = await rawRequest({ method: 'POST', port, headers, body: initializeBody(clientName), timeoutMs: run.timeouts.requestMs });
  await closeIfSessionCreated(res, port, token, run.timeouts.requestMs);
  return res;
}

/** `bearer <token>` opens a session: RFC 7235 matches the scheme in any case, and clients write it so. */
async function checkSchemeCase(run: CheckRun): Promise<void> {
  let res: RawResponse;
  try {
    res = await probeInitialize(run, { ...postHeaders(), Authorization: `bearer ${run.target.token}` }, 'ide-companion-check-scheme-case');
  } catch (err) {
    run.record.fail('security.auth.schemeCase', `initialize with "bearer <token>" got no answer: ${errorMessage(err)}`);
    return;
  }
  if (res.status === 200) run.record.pass('security.auth.schemeCase', '"bearer <token>" opens a session');
  else
    run.record.warn(
      'security.auth.schemeCase',
      `"bearer <token>" got HTTP ${res.status}: the scheme is case-insensitive (RFC 7235), so a client writing it so is refused`,
    );
}

/** Host and Origin probes; returns the Origin probe responses for the CORS check. */
async function checkHostAndOrigin(run: CheckRun): Promise<RawResponse[]> {
  const withToken = postHeaders(run.target.token);

  const host = `evil.example:${run.target.port}`;
  try {
    const res = await probeInitialize(run, { ...withToken, Host: host }, 'ide-companion-check-host-probe');
    if (res.status >= 200 && res.status < 300) {
      run.record.fail('security.host', `Host: ${host} was served (HTTP ${res.status}): a web page can reach the companion by DNS rebinding`);
    } else if (res.status >= 400 && res.status < 500) run.record.pass('security.host', `Host: ${host} refused with HTTP ${res.status}`);
    else run.record.warn('security.host', `Host: ${host} answered HTTP ${res.status}`);
  } catch (err) {
    run.record.warn('security.host', `Host: ${host}: ${errorMessage(err)}`);
  }

  const responses: RawResponse[] = [];
  const accepted: string[] = [];
  const refused: string[] = [];
  for (const origin of [FOREIGN_ORIGIN, 'http://localhost:3000']) {
    try {
      const res = await probeInitialize(run, { ...withToken, Origin: origin }, 'ide-companion-check-origin-probe');
      responses.push(res);
      if (res.status >= 200 && res.status < 300) accepted.push(`${origin} (HTTP ${res.status})`);
      else refused.push(`${origin} (HTTP ${res.status})`);
    } catch (err) {
      refused.push(`${origin} (${errorMessage(err)})`);
    }
  }
  if (accepted.length > 0) run.record.fail('security.origin', `served requests with Origin ${accepted.join(', ')}: a browser page could drive the companion`);
  else run.record.pass('security.origin', `refused Origin ${refused.join(', ')}`);
  return responses;
}

async function checkCors(run: CheckRun, session: CliLikeSession, originResponses: RawResponse[]): Promise<void> {
  const seen: Array<{ where: string; value: string }> = [];
  try {
    const preflight = await rawRequest({
      method: 'OPTIONS',
      port: run.target.port,
      headers: {
        Origin: FOREIGN_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-session-id',
      },
      timeoutMs: run.timeouts.requestMs,
    });
    const acao = preflight.headers['access-control-allow-origin'];
    if (typeof acao === 'string') seen.push({ where: `OPTIONS preflight (HTTP ${preflight.status})`, value: acao });
  } catch {
    // No answer to a preflight is fine.
  }
  for (const res of originResponses) {
    const acao = res.headers['access-control-allow-origin'];
    if (typeof acao === 'string') seen.push({ where: `POST with Origin (HTTP ${res.status})`, value: acao });
  }
  for (const exchange of session.wire) {
    if (exchange.allowOrigin !== null) seen.push({ where: `${exchange.method} of the CLI-like session`, value: exchange.allowOrigin });
  }
  const bad = seen.filter((s) => s.value.trim() === '*' || s.value.trim() === FOREIGN_ORIGIN);
  if (bad.length > 0) {
    run.record.fail(
      'security.cors',
      `Access-Control-Allow-Origin: ${bad[0]!.value} on ${[...new Set(bad.map((b) => b.where))].join(', ')}: browsers let any page read the answers`,
    );
  } else if (seen.length > 0) {
    run.record.pass('security.cors', `Access-Control-Allow-Origin only names ${[...new Set(seen.map((s) => s.value))].join(', ')}`);
  } else {
    run.record.pass('security.cors', 'no Access-Control-Allow-Origin header on any answer');
  }
}

/** Addresses of this machine a server bound to all interfaces would answer on. */
export function nonLoopbackAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      if (a.family === 'IPv6' && (a.address.toLowerCase().startsWith('fe80:') || a.scopeid)) continue; // link-local needs a scope
      out.push(a.address);
    }
  }
  return out;
}

async function checkInterfaces(run: CheckRun): Promise<void> {
  const addresses = nonLoopbackAddresses();
  if (addresses.length === 0) {
    run.record.skip('security.interfaces', 'this machine has no non-loopback address to try');
    return;
  }
  const results = await Promise.all(addresses.map(async (a) => ({ address: a, ...(await canConnect(a, run.target.port, run.timeouts.connectMs)) })));
  const open = results.filter((r) => r.connected);
  if (open.length > 0) {
    run.record.fail(
      'security.interfaces',
      `port ${run.target.port} answers on ${open.map((r) => r.address).join(', ')}: other machines on the network can reach the companion`,
    );
  } else {
    run.record.pass('security.interfaces', `port ${run.target.port} closed on ${results.map((r) => `${r.address} (${r.detail})`).join(', ')}`);
  }
}

/** A rough upper bound on the token's randomness, from its alphabet and length. */
export function estimateTokenBits(token: string): { bits: number; looksLike: string } {
  const distinct = new Set(token).size;
  let perChar: number;
  let looksLike: string;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(token)) {
    return { bits: 122, looksLike: 'a UUID' };
  } else if (/^[0-9]+$/.test(token)) {
    perChar = Math.log2(10);
    looksLike = 'decimal digits';
  } else if (/^[0-9a-f]+$/i.test(token)) {
    perChar = 4;
    looksLike = 'hex';
  } else if (/^[A-Za-z0-9+/_-]+=*$/.test(token)) {
    perChar = 6;
    looksLike = 'base64';
  } else {
    perChar = Math.log2(95);
    looksLike = 'printable text';
  }
  const length = token.replace(/=+$/, '').length;
  // A token of very few distinct characters ("aaaa...") is not random, whatever its alphabet.
  const cap = distinct < 8 ? Math.log2(Math.max(distinct, 1)) : perChar;
  const bits = Math.floor(length * Math.min(perChar, cap));
  return { bits, looksLike };
}

function checkTokenStrength(run: CheckRun): void {
  const { bits, looksLike } = estimateTokenBits(run.target.token);
  const what = `${run.target.token.length} characters of ${looksLike}, at most ~${bits} bits`;
  if (bits >= 128) run.record.pass('security.tokenStrength', what);
  else run.record.warn('security.tokenStrength', `${what}: under 128 bits (use 32 bytes from a CSPRNG)`);
}
