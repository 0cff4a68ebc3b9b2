/** The bearer token: 256 random bits per start, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 bytes from the CSPRNG, hex: safe in headers, env vars and shells. */
export function generateAuthToken(): string {
  return randomBytes(32).toString('hex');
}

const BEARER = /^Bearer ([^\s]+)$/;

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

/** A checker for `Authorization` headers carrying exactly `Bearer <token>`. */
export function bearerChecker(token: string): (header: string | undefined) => boolean {
  const matches = tokenChecker(token);
  return (header) => {
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    return matches(match?.[1]) && match !== null;
  };
}
