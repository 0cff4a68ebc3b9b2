/**
 * The one way the client-side commands build a CompanionClient. A module of
 * its own: `doctor` imports it only when there is a companion to dial, and
 * the release builds it into a file of its own (build/release.ts), so that
 * doctor's start parses no connection code.
 */
import { CompanionClient, DEFAULT_AVAILABILITY_TIMEOUT_MS, type CompanionClientOptions } from '@ide-companion/client/companionClient';
import type { Common } from './output.js';

/**
 * A client for one command run: no reconnect unless asked, the CLI's timeouts
 * bounded by --timeout, and a companion in this same container reached on
 * loopback even where gemini would dial host.docker.internal.
 */
export function makeClient(c: Common, extra: Partial<CompanionClientOptions> = {}): CompanionClient {
  return new CompanionClient({
    cwd: c.cwd,
    env: process.env,
    initTimeoutMs: c.timeoutMs,
    availabilityTimeoutMs: Math.min(DEFAULT_AVAILABILITY_TIMEOUT_MS, c.timeoutMs),
    reconnect: false,
    heartbeatMs: 0,
    dialLocalCompanion: true,
    ...extra,
  });
}
