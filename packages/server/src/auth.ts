/** The bearer token: 256 random bits per start, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 bytes from the CSPRNG, hex: safe in headers, env vars and shells. */
export function generateAuthToken(): string {
  return randomBytes(32).toString('hex');
}

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * Whether an `Authorization` header carries exactly `token`. Both sides are
 * hashed first so the comparison takes the same time whatever the candidate's
 * length or content.
 */
export function authorizationMatches(header: string | undefined, token: string): boolean {
  if (typeof header !== 'string') return false;
  const match = BEARER.exec(header);
  const candidate = match?.[1] ?? '';
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b) && match !== null;
}
