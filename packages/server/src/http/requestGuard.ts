/**
 * The checks every request passes before anything else runs: a loopback Host
 * naming our port (DNS rebinding), no Origin (a web page must never reach the
 * server), and the bearer token.
 */
import type { IncomingMessage } from 'node:http';
import { authorizationMatches } from '../auth.js';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

/** undefined when the request may proceed, else why not. */
export function checkRequest(req: IncomingMessage, port: number, token: string): Refusal | undefined {
  const host = req.headers.host?.toLowerCase();
  if (!host || !allowedHosts(port).has(host)) {
    return { status: 403, message: 'Forbidden: Host must be 127.0.0.1 or localhost with this server\'s port' };
  }
  if (req.headers.origin !== undefined) {
    return { status: 403, message: 'Forbidden: requests with an Origin header are refused (browsers may not reach this server)' };
  }
  if (!authorizationMatches(req.headers.authorization, token)) {
    const reason = req.headers.authorization === undefined ? 'missing bearer token' : 'invalid bearer token';
    return { status: 401, message: `Unauthorized: ${reason}`, headers: { 'WWW-Authenticate': 'Bearer' } };
  }
  return undefined;
}
