/**
 * The checks every request passes before anything else runs: a Host the
 * listener expects (a loopback Host naming our port, against DNS rebinding),
 * no Origin (a web page must never reach the server), and the bearer token.
 */
import type { IncomingMessage } from 'node:http';
import { bearerTokenOf, tokenChecker, tokenMatcher } from '../auth.js';
import type { AgentName } from '@ide-companion/shared/agentPaths';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Which Host headers a listener accepts, and how a refusal says so. */
export interface HostRule {
  allows(host: string | undefined): boolean;
  /** Completes "Forbidden: Host must be ...". */
  readonly expected: string;
}

/** The loopback port: `127.0.0.1:PORT` or `localhost:PORT` (`port()` is read per request: known only once listening). */
export function loopbackHostRule(port: () => number): HostRule {
  return {
    allows: (host) => host === `127.0.0.1:${port()}` || host === `localhost:${port()}`,
    expected: "127.0.0.1 or localhost with this server's port",
  };
}

/**
 * The Unix socket: `localhost`, as curl --unix-socket and the relay send. No
 * page can reach a socket, but the rule stays as strict as the port's.
 */
export function socketHostRule(host: string): HostRule {
  return { allows: (candidate) => candidate === host, expected: host };
}

/**
 * A guard for one listener: a token as `Authorization: Bearer <token>`. Each
 * agent whose face has a token of its own (Qwen Code's lock file) is told
 * apart by it; the answer is the agent, or why not. Every token is compared,
 * in constant time, whichever matches.
 */
export function requestGuard(
  hosts: HostRule,
  tokens: ReadonlyArray<readonly [token: string, agent: AgentName]>,
): (req: IncomingMessage) => Refusal | AgentName {
  const agentOf = tokenMatcher(tokens);
  return (req) => {
    const header = req.headers.authorization;
    const agent = agentOf(bearerTokenOf(header));
    const refusal = checkRequest(req, hosts, () => credentialRefusal(header, agent !== undefined, 'bearer token'));
    return refusal ?? agent!;
  };
}

/**
 * A guard for WebSocket upgrades (Claude Code's face): the same Host and
 * Origin rules (a page's WebSocket always carries an Origin: CVE-2025-52882),
 * the token in `header`.
 */
export function upgradeGuard(hosts: HostRule, token: string, header: string): (req: IncomingMessage) => Refusal | undefined {
  const tokenMatches = tokenChecker(token);
  return (req) =>
    checkRequest(req, hosts, () => {
      const value = req.headers[header];
      const candidate = typeof value === 'string' ? value : undefined;
      return credentialRefusal(value, tokenMatches(candidate), `token in ${header}`);
    });
}

/**
 * A guard for WebSocket upgrades whose token rides in the URL's query
 * (Amp's face: `?auth=TOKEN`, as Amp's CLI dials): the same Host and Origin
 * rules, the token compared in constant time; a second `auth` is refused.
 */
export function queryTokenGuard(hosts: HostRule, token: string, parameter: string): (req: IncomingMessage) => Refusal | undefined {
  const tokenMatches = tokenChecker(token);
  return (req) =>
    checkRequest(req, hosts, () => {
      const values = queryValues(req.url, parameter);
      const candidate = values.length === 1 ? values[0] : undefined;
      return credentialRefusal(values.length === 0 ? undefined : values, tokenMatches(candidate), `token in the query parameter ${parameter}`);
    });
}

/**
 * A guard for a listener whose agent sends no credential at all (a face on a
 * port of its own): the same Host and Origin rules, then `admit` in the
 * token's place (a check of who connects); the answer is `agent`, or why not.
 */
export function admissionGuard(
  hosts: HostRule,
  agent: AgentName,
  admit: (req: IncomingMessage) => Refusal | undefined,
): (req: IncomingMessage) => Refusal | AgentName {
  return (req) => checkRequest(req, hosts, () => admit(req)) ?? agent;
}

/** Every value of `parameter` in a request's URL; none for a URL that does not parse. */
export function queryValues(url: string | undefined, parameter: string): string[] {
  try {
    return new URL(url ?? '/', 'ws://localhost').searchParams.getAll(parameter);
  } catch {
    return [];
  }
}

function credentialRefusal(value: unknown, matches: boolean, what: string): Refusal | undefined {
  if (matches) return undefined;
  const reason = value === undefined ? `missing ${what}` : `invalid ${what}`;
  return { status: 401, message: `Unauthorized: ${reason}`, headers: { 'WWW-Authenticate': 'Bearer' } };
}

/** undefined when the request may proceed, else why not. */
function checkRequest(req: IncomingMessage, hosts: HostRule, credential: () => Refusal | undefined): Refusal | undefined {
  // node:http keeps only the first of several Host headers; a proxy or server behind may read another one.
  if (hostHeaderCount(req.rawHeaders) > 1) {
    return { status: 403, message: 'Forbidden: more than one Host header' };
  }
  if (!hosts.allows(req.headers.host?.toLowerCase())) {
    return { status: 403, message: `Forbidden: Host must be ${hosts.expected}` };
  }
  if (req.headers.origin !== undefined) {
    return { status: 403, message: 'Forbidden: requests with an Origin header are refused (browsers may not reach this server)' };
  }
  return credential();
}

function hostHeaderCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
}
