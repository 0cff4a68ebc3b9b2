#!/usr/bin/env node
/**
 * A day of heavy editing, compressed, through an editor end's real host
 * (issue 21; bench/soak.mjs is the server kit alone): testkit's hostSoak.ts.
 *
 * - bridge: the JSON-lines host Vim and Emacs run (the committed bundle), a
 *   scripted editor writing one million focus/cursor/selection events to its
 *   stdin and accepting every diff (every fourth with an edited text).
 * - neovim: the bundled host started by the plugin in a real headless Neovim,
 *   events made by the plugin's own handlers (buffer switches, cursor moves
 *   with CursorMoved, Visual mode), every diff accepted from Lua. Skipped
 *   when nvim is not on PATH.
 *
 * Both: a real MCP SDK client as Gemini CLI, a thousand openDiff of 1 KiB to
 * 1 MiB (log-spread, every round taking from the whole range), each answered
 * by ide/diffAccepted and written as the CLI writes it, a hundred closed and
 * reopened sessions, over 10 rounds. After each round: the host's RSS and
 * open descriptors from /proc/PID, its heap after a full GC and its active
 * resources from a probe loaded with NODE_OPTIONS; `fds` leaves out the
 * client's open connections (`connections`: its stream and idle keep-alive
 * pool, closed by the server's timeout on no round's beat). The first fifth is the
 * warm-up. Goals: RSS within 10% of the warm-up's end, every diff answered,
 * as many descriptors at the end as after the warm-up, no resource more.
 *
 * `node bench/soak-hosts.mjs [bridge|neovim]` runs one host only.
 */
import * as path from 'node:path';
import { runHostSoak, soakVerdict, startBridgeSoak, startNeovimSoak, which } from '@ide-companion/testkit';
import { log, machine, ms, runBench, scaled } from './lib/common.mjs';

const GROWTH_GOAL = 1.1;
const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');

const options = {
  events: scaled(1_000_000, 20_000),
  diffs: scaled(1000, 20),
  reconnects: scaled(100, 4),
  rounds: scaled(10, 5),
};

const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** One host's run, its figures next to their limits. */
async function soak(name, start) {
  log(`${name}: ${options.events} events, ${options.diffs} diffs, ${options.reconnects} reconnects over ${options.rounds} rounds`);
  const host = await start();
  const result = await runHostSoak(host, { ...options, log: (line) => log(`${name}: ${line}`) });
  const verdict = soakVerdict(result);
  const base = result.samples[verdict.warmupRounds - 1];
  const last = result.samples.at(-1);
  return {
    events: result.eventsApplied,
    eventsPerSecond: Math.round(result.eventsApplied / (result.durationMs / 1000)),
    durationMs: ms(result.durationMs),
    diffs: { sent: result.diffsSent, answered: result.diffsAnswered, mib: mib(result.diffBytes) },
    contextUpdates: result.contextUpdates,
    reconnects: result.reconnects,
    afterWarmup: { rssMiB: mib(base.rss), heapMiB: mib(base.heapUsed), fds: base.fds },
    atEnd: { rssMiB: mib(last.rss), heapMiB: mib(last.heapUsed), fds: last.fds },
    samples: result.samples.map((s) => ({ rssMiB: mib(s.rss), heapMiB: mib(s.heapUsed), fds: s.fds, connections: s.connections, resources: s.resources })),
    verdict: { ...verdict, heapGrowth: ms(verdict.heapGrowth), rssGrowth: ms(verdict.rssGrowth) },
    goal: { rssGrowth: GROWTH_GOAL },
    met: {
      rss: verdict.rssGrowth <= GROWTH_GOAL,
      everyDiffAnswered: result.diffsAnswered === result.diffsSent,
      noLeaks: verdict.fdsLeaked <= 0 && Object.keys(verdict.resourcesLeaked).length === 0,
    },
  };
}

async function neovim() {
  if (!which('nvim')) return { skipped: 'nvim is not on PATH' };
  // The tests' harness (compiled): a headless Neovim with the plugin of this repository, in a private TMPDIR.
  const { startNeovim } = await import(path.join(root, 'editors', 'neovim', 'dist', 'test', 'harness.js'));
  const session = await startNeovim({ start: false });
  try {
    return await soak('neovim', () => startNeovimSoak(session));
  } finally {
    await session.close();
  }
}

runBench(async () => {
  const only = process.argv[2];
  const hosts = {};
  if (!only || only === 'bridge') hosts.bridge = await soak('bridge', () => startBridgeSoak());
  if (!only || only === 'neovim') hosts.neovim = await neovim();
  return { machine: machine(), options, hosts };
});
