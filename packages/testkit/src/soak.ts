/**
 * A day of heavy editing, compressed (issue 21): one companion process
 * (soak-companion.mjs: an editor that accepts every diff) with a real MCP SDK
 * client connected as Gemini CLI connects, receiving `events` editor events,
 * `diffs` openDiff calls of 1 KiB to 1 MiB (log-spread sizes) and `reconnects`
 * closed and reopened sessions, interleaved over `rounds` rounds. After each
 * round the companion reports its heap (after a full GC), RSS, open file
 * descriptors and active resources (timers, sockets). The first fifth of the
 * rounds is the warm-up; what the soak holds against is the state after it.
 */
import { writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/mini';
import { makeTempDir } from './tempDir.js';
import { ContextUpdateNotification, DiffAcceptedNotification, OpenDiffTool } from '@ide-companion/protocol';

// Compiled to dist/src/: the companion script stays in the source tree.
const COMPANION = fileURLToPath(new URL('../../src/soak-companion.mjs', import.meta.url));

export interface SoakOptions {
  events: number;
  diffs: number;
  reconnects: number;
  rounds: number;
  /**
   * The order of the diffs' sizes: `ascending` (1 KiB first, 1 MiB last), or
   * `spread` (each round from the whole range, so every round carries the
   * same load and growth after the warm-up is not the later diffs' size).
   */
  diffOrder?: 'ascending' | 'spread';
  /** Progress lines (stderr in the bench). */
  log?: (line: string) => void;
}

export interface SoakStats {
  heapUsed: number;
  rss: number;
  fds: number;
  resources: Record<string, number>;
}

export interface SoakResult {
  /** After the warm-up round, then after each later round. */
  samples: SoakStats[];
  diffsAnswered: number;
  diffsSent: number;
  diffBytes: number;
  contextUpdates: number;
  reconnects: number;
  eventsApplied: number;
  durationMs: number;
}

const KiB = 1024;
/**
 * The size indices of `count` diffs over `rounds` rounds, each round taking
 * every rounds-th size (0, R, 2R, ... then 1, R+1, ...): the same sizes as
 * ascending, the whole range in every round.
 */
export function spreadOrder(count: number, rounds: number): number[] {
  return [...Array(count).keys()].sort((a, b) => (a % rounds) - (b % rounds) || a - b);
}

/** 1 KiB to 1 MiB, spread evenly on a log scale. */
export function diffSize(i: number, count: number): number {
  const t = count <= 1 ? 0 : (i % count) / (count - 1);
  return Math.round(KiB * Math.pow(1024, t));
}

/** The MCP SDK client of the soak, connected as Gemini CLI connects. */
export class SoakClient {
  private waiters = new Map<string, (content: string | undefined) => void>();
  contextUpdates = 0;

  private constructor(readonly client: Client) {}

  static async connect(port: number, token: string): Promise<SoakClient> {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const soak = new SoakClient(new Client({ name: 'streamable-http-client', version: 'soak' }));
    // Counted and dropped: a soak's client must not hold what it receives.
    soak.client.setNotificationHandler(z.object({ method: z.literal(ContextUpdateNotification.method), params: z.optional(z.any()) }), () => {
      soak.contextUpdates++;
    });
    soak.client.setNotificationHandler(z.object({ method: z.literal(DiffAcceptedNotification.method), params: z.any() }), (n) => {
      const { filePath, content } = (n.params ?? {}) as { filePath?: string; content?: string };
      if (!filePath) return;
      // As a CLI does: the accepted text is written, then the edit is done.
      if (typeof content === 'string') writeFileSync(filePath, content);
      soak.waiters.get(filePath)?.(content);
    });
    await soak.client.connect(transport);
    return soak;
  }

  /** openDiff, then the ide/diffAccepted that answers it; resolves to the accepted text it carried. */
  async diff(filePath: string, newContent: string, timeoutMs: number): Promise<string | undefined> {
    const accepted = new Promise<string | undefined>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ide/diffAccepted for ${filePath} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.set(filePath, (content) => {
        clearTimeout(timer);
        this.waiters.delete(filePath);
        resolve(content);
      });
    });
    const result = await this.client.callTool({ name: OpenDiffTool.name, arguments: { filePath, newContent } }, undefined, { timeout: timeoutMs });
    if (result.isError) throw new Error(`openDiff failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    return accepted;
  }

  async close(): Promise<void> {
    // As our client does: DELETE the session, then close.
    await (this.client.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => undefined);
    await this.client.close();
  }
}

/**
 * What a soak drives: a companion reachable over loopback HTTP whose editor
 * accepts every diff, fed editor events by that editor, sampled after each round.
 */
export interface SoakTarget {
  port: number;
  token: string;
  /** Where the proposals' files go. */
  workspace: string;
  /** Has the editor make `count` events; resolves, once the companion has taken them, to how many it sent. */
  events(count: number): Promise<number>;
  /** The companion's state after a round. */
  stats(): Promise<SoakStats>;
  /** Diff `index`'s proposal of `size` bytes (default: one line of x). */
  proposal?(size: number, index: number): string;
  /** The text the editor accepts diff `index` with (default: the proposal, unedited). */
  acceptedText?(proposal: string, index: number): string;
}

/**
 * The soak's rounds against `target`: editing, a diff now and then, a
 * reconnect now and then, interleaved in slices; a sample after each round.
 * Throws if a diff is accepted with another text than the editor's.
 */
export async function driveSoak(target: SoakTarget, options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  let client: SoakClient | undefined = await SoakClient.connect(target.port, target.token);
  try {
    const result: SoakResult = {
      samples: [],
      diffsAnswered: 0,
      diffsSent: 0,
      diffBytes: 0,
      contextUpdates: 0,
      reconnects: 0,
      eventsApplied: 0,
      durationMs: 0,
    };
    const order = options.diffOrder === 'spread' ? spreadOrder(options.diffs, options.rounds) : undefined;
    const share = (total: number, round: number) => Math.floor((total * (round + 1)) / options.rounds) - Math.floor((total * round) / options.rounds);
    for (let round = 0; round < options.rounds; round++) {
      const events = share(options.events, round);
      const diffs = share(options.diffs, round);
      const reconnects = share(options.reconnects, round);
      const slices = Math.max(diffs, reconnects, 1);
      for (let s = 0; s < slices; s++) {
        const sliceEvents = Math.floor((events * (s + 1)) / slices) - Math.floor((events * s) / slices);
        result.eventsApplied += await target.events(sliceEvents);
        if (s < diffs) {
          const index = result.diffsSent;
          const size = diffSize(order?.[index] ?? index, options.diffs);
          const filePath = path.join(target.workspace, `proposal${index % 20}.txt`);
          const proposal = target.proposal?.(size, index) ?? 'x'.repeat(size - 1) + '\n';
          result.diffsSent++;
          result.diffBytes += size;
          const content = await client.diff(filePath, proposal, 60_000);
          const expected = target.acceptedText?.(proposal, index) ?? proposal;
          // Unedited, the CLI may be told no text (it writes its own proposal).
          if ((content ?? proposal) !== expected) throw new Error(`diff ${index} (${filePath}) was accepted with another text than the editor's`);
          result.diffsAnswered++;
        }
        if (s < reconnects) {
          result.contextUpdates += client.contextUpdates;
          const closing = client;
          client = undefined;
          await closing.close();
          client = await SoakClient.connect(target.port, target.token);
          result.reconnects++;
        }
      }
      const stats = await target.stats();
      result.samples.push(stats);
      log(
        `round ${round + 1}/${options.rounds}: heap ${(stats.heapUsed / 2 ** 20).toFixed(1)} MiB, rss ${(stats.rss / 2 ** 20).toFixed(1)} MiB, ${stats.fds} fds, ${JSON.stringify(stats.resources)}`,
      );
    }
    result.contextUpdates += client.contextUpdates;
    result.durationMs = performance.now() - started;
    return result;
  } finally {
    await client?.close().catch(() => undefined);
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const tmp = makeTempDir('ide-companion-soak-');
  const child = spawn(process.execPath, ['--expose-gc', COMPANION, tmp.path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers = createInterface({ input: child.stdout });
  const pending: Array<(message: Record<string, unknown>) => void> = [];
  answers.on('line', (line) => pending.shift()?.(JSON.parse(line) as Record<string, unknown>));
  const next = () => new Promise<Record<string, unknown>>((resolve) => pending.push(resolve));
  const ask = (command: string) => {
    const answer = next();
    child.stdin.write(`${command}\n`);
    return answer;
  };
  try {
    const ready = (await next()) as { port: number; discoveryFile: string; workspace: string };
    const token = (JSON.parse(fs.readFileSync(ready.discoveryFile, 'utf8')) as { authToken: string }).authToken;
    return await driveSoak(
      {
        port: ready.port,
        token,
        workspace: ready.workspace,
        events: async (count) => {
          await ask(`events ${count}`);
          return count;
        },
        stats: async () => (await ask('stats'))['stats'] as SoakStats,
      },
      options,
    );
  } finally {
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    tmp.cleanup();
  }
}

export interface SoakVerdict {
  /** Rounds counted as warm-up (JIT, caches, the allocator's first arenas): the first fifth. */
  warmupRounds: number;
  /** The highest heap and RSS after the warm-up ÷ their value at its end. */
  heapGrowth: number;
  rssGrowth: number;
  /** Descriptors and active resources at the end beyond those at the end of the warm-up. */
  fdsLeaked: number;
  resourcesLeaked: Record<string, number>;
}

/** What the soak holds against: growth after the warm-up (the first fifth, unless `warmup` says how many rounds), and leaks. */
export function soakVerdict(result: SoakResult, warmup?: number): SoakVerdict {
  const warmupRounds = warmup ?? Math.max(1, Math.ceil(result.samples.length / 5));
  const [base, ...rest] = result.samples.slice(warmupRounds - 1);
  if (!base || rest.length === 0) throw new Error('the soak needs rounds after its warm-up');
  const last = rest.at(-1) ?? base;
  const max = (pick: (s: SoakStats) => number) => Math.max(...[base, ...rest].map(pick));
  const resourcesLeaked: Record<string, number> = {};
  for (const [kind, count] of Object.entries(last.resources)) {
    const extra = count - (base.resources[kind] ?? 0);
    if (extra > 0) resourcesLeaked[kind] = extra;
  }
  return {
    warmupRounds,
    heapGrowth: max((s) => s.heapUsed) / base.heapUsed,
    rssGrowth: max((s) => s.rss) / base.rss,
    fdsLeaked: last.fds - base.fds,
    resourcesLeaked,
  };
}
