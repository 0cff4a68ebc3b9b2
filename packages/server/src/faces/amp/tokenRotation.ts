/**
 * Amp's token, rotated as amp.nvim rotates its own (ampcode/amp.nvim `init.lua`, `_rotate_auth_token`): every 4 h a
 * new token, the lock file rewritten with it, and from then on an upgrade must carry it; connected CLIs stay
 * connected (a WebSocket is checked once, at its upgrade), and a CLI that connects again reads the lock file again.
 * A token read from the lock file (or leaked from it) is good for at most one interval.
 *
 * The lock file is rewritten by the companion's lock machinery (agentRoster.ts, atomically, 0600): the new token is
 * taken only once it is written; a write that fails keeps the old one, as amp.nvim does.
 */
import type { Logger } from '../../logger.js';
import { describeError } from '../../logger.js';

/** amp.nvim's TOKEN_ROTATION_INTERVAL_MS. */
export const AMP_TOKEN_ROTATION_MS = 4 * 60 * 60 * 1000;

export interface TokenRotationOptions {
  /** The first token (in the lock file when it is first written). */
  token: string;
  /** A new token. */
  generate: () => string;
  /** The face takes `token` for new connections from now on (AmpFace.acceptToken). */
  accept: (token: string) => void;
  /** How often; AMP_TOKEN_ROTATION_MS unless given (tests). */
  intervalMs?: number | undefined;
  logger: Logger;
}

export class TokenRotation {
  private current: string;
  private timer: NodeJS.Timeout | undefined;
  private rewrite: (() => boolean) | undefined;

  constructor(private readonly options: TokenRotationOptions) {
    this.current = options.token;
  }

  /** The token the lock file holds (and the face takes). */
  get token(): string {
    return this.current;
  }

  /**
   * Rotation starts once the lock file is held: `rewrite` writes it again with `token`'s value now, false when it
   * could not (FaceLock.rewriter). Handed again when the face is served again (its folder came back): one timer.
   */
  start(rewrite: () => boolean): void {
    this.rewrite = rewrite;
    if (this.timer) return;
    const every = this.options.intervalMs ?? AMP_TOKEN_ROTATION_MS;
    this.timer = setInterval(() => this.rotate(), every);
    this.timer.unref();
  }

  /** A new token, written to the lock file, then required of new connections; false (the old one kept) when not written. */
  rotate(): boolean {
    if (!this.rewrite) return false;
    const previous = this.current;
    this.current = this.options.generate();
    let written = false;
    try {
      written = this.rewrite();
    } catch (err) {
      this.options.logger.warn('Amp token not rotated: its lock file could not be rewritten', { error: describeError(err) });
    }
    if (!written) {
      this.current = previous;
      return false;
    }
    this.options.accept(this.current);
    this.options.logger.info('Amp token rotated: its lock file rewritten; connected CLIs stay connected');
    return true;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.rewrite = undefined;
  }
}
