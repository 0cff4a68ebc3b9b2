/**
 * The checks every request passes before anything else runs: a loopback Host
 * naming our port (DNS rebinding), no Origin (a web page must never reach the
 * server), and the bearer token.
 */
import type { IncomingMessage } from 'node:http';
import { bearerChecker } from '../auth.js';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** A guard for one server: `port()` is read per request (known only once listening). */
export function requestGuard(port: () => number, token: string): (req: IncomingMessage) => Refusal | undefined {
  const tokenMatches = bearerChecker(token);
  return (req) => checkRequest(req, port(), tokenMatches);
}

/** undefined when the request may proceed, else why not. */
function checkRequest(req: IncomingMessage, port: number, tokenMatches: (header: string | undefined) => boolean): Refusal | undefined {
  // node:http keeps only the first of several Host headers; a proxy or server behind may read another one.
  if (hostHeaderCount(req.rawHeaders) > 1) {
    return { status: 403, message: 'Forbidden: more than one Host header' };
  }
  const host = req.headers.host?.toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    return { status: 403, message: "Forbidden: Host must be 127.0.0.1 or localhost with this server's port" };
  }
  if (req.headers.origin !== undefined) {
    return { status: 403, message: 'Forbidden: requests with an Origin header are refused (browsers may not reach this server)' };
  }
  if (!tokenMatches(req.headers.authorization)) {
    const reason = req.headers.authorization === undefined ? 'missing bearer token' : 'invalid bearer token';
    return { status: 401, message: `Unauthorized: ${reason}`, headers: { 'WWW-Authenticate': 'Bearer' } };
  }
  return undefined;
}

function hostHeaderCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
}
