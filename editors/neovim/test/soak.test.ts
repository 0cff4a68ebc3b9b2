/**
 * The Neovim host's soak in its short mode (issue 21; the full day is
 * bench/soak-hosts.mjs): the bundled host started by the plugin in a real
 * headless Neovim, 100,000 events made by the plugin's own handlers (buffer
 * switches, cursor moves, Visual mode), 500 diffs of 1 KiB to 1 MiB accepted
 * from Lua (some edited), a real MCP SDK client reconnecting 20 times. Every
 * diff is answered with the buffer's text, no descriptor or timer outlives
 * the work, and the host's RSS (from /proc) stays below 1.25x of the
 * warm-up's end (500 diffs so that the warm-up is past RSS's first climb:
 * the bridge's soak.test.ts says why).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertShortHostSoak, runHostSoak, skipUnless, startNeovimSoak } from '@ide-companion/testkit';
import { hasNvim, startNeovim } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

test(
  'the Neovim host through a compressed stretch of heavy editing: every diff answered, no descriptor or timer leaked, RSS flat',
  { skip, timeout: 180_000 },
  async (t) => {
    const session = await startNeovim({ start: false });
    try {
      const host = await startNeovimSoak(session);
      const result = await runHostSoak(host, { events: 100_000, diffs: 500, reconnects: 20, rounds: 5, log: (line) => t.diagnostic(line) });
      assertShortHostSoak(result, { diffs: 500, reconnects: 20 }, (line) => t.diagnostic(line));
      // A move that lands where the cursor already was is not sent: nearly all are.
      assert.ok(result.eventsApplied > 99_000 && result.eventsApplied <= 100_000, `${result.eventsApplied} events sent`);
    } finally {
      await session.close();
    }
  },
);
