/** The bearer token: 256 random bits per start, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 bytes from the CSPRNG, hex: safe in headers, env vars and shells. */
export function generateAuthToken(): string {
  return randomBytes(32).toString('hex');
}

// RFC 7235: the scheme is case-insensitive (`bearer`, `BEARER`) and one or more spaces separate it from the token.
const BEARER = /^Bearer +([^\s]+)$/i;

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * A checker for candidates equal to `token`. Both sides are hashed so the
 * comparison takes the same time whatever the candidate's length or content;
 * the token's digest is computed once, not per request.
 */
export function tokenChecker(token: string): (candidate: string | undefined) => boolean {
  const expected = digest(token);
  return (candidate) => timingSafeEqual(digest(candidate ?? ''), expected) && typeof candidate === 'string' && candidate !== '';
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case); undefined for anything else. */
export function bearerTokenOf(header: unknown): string | undefined {
  return typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
}

/** A checker for `Authorization` headers carrying exactly `Bearer <token>` (the scheme in any case). */
export function bearerChecker(token: string): (header: string | undefined) => boolean {
  const matches = tokenChecker(token);
  return (header) => matches(bearerTokenOf(header));
}

/**
 * Which of several tokens a candidate is (each face's own: docs/agents.md),
 * or undefined. The candidate is hashed once and compared with every token's
 * digest in constant time, whichever matches.
 */
export function tokenMatcher<T>(tokens: ReadonlyArray<readonly [token: string, value: T]>): (candidate: string | undefined) => T | undefined {
  const expected = tokens.map(([token, value]) => [digest(token), value] as const);
  return (candidate) => {
    const got = digest(candidate ?? '');
    let found: T | undefined;
    for (const [want, value] of expected) if (timingSafeEqual(got, want)) found ??= value;
    return typeof candidate === 'string' && candidate !== '' ? found : undefined;
  };
}
