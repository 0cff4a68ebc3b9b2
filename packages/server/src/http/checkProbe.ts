/**
 * `ide-companion check` sends deliberate bad requests (no token, a wrong one,
 * a foreign Host or Origin) to see them refused. Against `serve` each refusal
 * filled its status line as if it were under attack. check's requests carry
 * a proof that their sender holds the companion's token (an HMAC of a fixed
 * text under it); a refusal of such a request is logged as check's, below
 * the warnings. The guard decides exactly as for any other request, and a
 * sender without the token cannot make its refusals quiet.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../logger.js';

export const CHECK_PROBE_HEADER = 'x-ide-companion-check';

/** The header's value for `token`. */
export function checkProbeProof(token: string): string {
  return createHmac('sha256', token).update('ide-companion check: a deliberate probe').digest('hex');
}

/** Tells whether a request carries the proof for one of `tokens`; the proofs are worked out once, here. */
export function checkProbeTest(tokens: readonly string[]): (req: IncomingMessage) => boolean {
  const proofs = tokens.map((token) => Buffer.from(checkProbeProof(token)));
  return (req) => {
    const value = req.headers[CHECK_PROBE_HEADER];
    if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) return false;
    const given = Buffer.from(value);
    return proofs.some((proof) => timingSafeEqual(proof, given));
  };
}

/** Logs a refusal: a warning, or, when it answers check's deliberate probe, below the warnings and said to be one. */
export function logRefusal(logger: Logger, probe: boolean, message: string, fields: Record<string, unknown>): void {
  if (probe) logger.info(`${message} (ide-companion check's probe)`, fields);
  else logger.warn(message, fields);
}
