/**
 * The host-restart policy of every script end, once: a host started again
 * after its editor's host died unasked (the end sets HOST_DIED_ENV) records
 * the death, backs off as the deaths come closer, and at the 5th within 3
 * minutes gives up: it says so and exits with HOST_GAVE_UP_EXIT_CODE instead
 * of serving. The end only starts a dead host again (protocol hostRestarts.ts).
 *
 *   <tmpdir>/ide-companion-<UID>/             0700 (companionSocket.ts)
 *       host-restarts/<editor PID>.json       0600: {"deaths": [ms, ...]}, the last 5, written atomically
 *
 * The editor is the host's parent process. A clean stop (the end closed the
 * host's input) removes the record; records of editors gone are swept.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HOST_DIED_ENV, HOST_KEPT_ENV, hostEnded, hostRestartWords } from '@ide-companion/protocol';
import { socketBaseDir } from './companionSocket.js';
import { ensurePrivateDirectory, sweepDeadPidEntries, writeFileAtomicPrivate } from './discoveryFile.js';
import { describeError, silentLogger, type Logger } from './logger.js';

export const HOST_RESTART_POLICY = {
  /** The death that makes the host give up, counted within `windowMs`. */
  maxDeaths: 5,
  windowMs: 180_000,
  /** Waited before serving after the 1st, 2nd, ... death in the window. */
  backoffMs: [0, 500, 1000, 2000],
} as const;

/** A record larger than this is not ours (5 numbers): it is read as empty. */
const MAX_RECORD_BYTES = 1024;
/** The kept files named at most, each at most this long: the variable is the end's, its size is not. */
const MAX_KEPT = 32;
const MAX_KEPT_NAME = 1024;

export interface HostRestartOptions {
  env?: NodeJS.ProcessEnv;
  /** The editor whose deaths are counted; default the parent process. */
  editorPid?: number;
  /** Default os.tmpdir(). */
  tmpdir?: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
}

export interface HostRestart {
  /** What the end shows: undefined for a start that follows no death (the user's, the editor's first). */
  said?: { level: 'warning' | 'error'; message: string };
  /** Exit with HOST_GAVE_UP_EXIT_CODE, serving nothing. */
  gaveUp: boolean;
  /** The deaths within the window, this one included. */
  deaths: number;
}

function recordFile(options: HostRestartOptions): string {
  return path.join(socketBaseDir(options.tmpdir ?? os.tmpdir()), 'host-restarts', `${options.editorPid ?? process.ppid}.json`);
}

function readDeaths(file: string): number[] {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      const buf = Buffer.alloc(MAX_RECORD_BYTES + 1);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      if (n > MAX_RECORD_BYTES) return [];
      const deaths = (JSON.parse(buf.subarray(0, n).toString('utf8')) as { deaths?: unknown }).deaths;
      return Array.isArray(deaths) ? deaths.filter((t): t is number => Number.isFinite(t)) : [];
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

/** The files the end says it kept (HOST_KEPT_ENV), bounded; anything else in it is ignored. */
function keptFiles(value: string | undefined): string[] {
  if (!value) return [];
  try {
    const list: unknown = JSON.parse(value);
    if (!Array.isArray(list)) return [];
    return list.filter((f): f is string => typeof f === 'string' && f.length > 0 && f.length <= MAX_KEPT_NAME).slice(0, MAX_KEPT);
  } catch {
    return [];
  }
}

function signalName(n: number): string | undefined {
  return Object.entries(os.constants.signals).find(([, v]) => v === n)?.[0];
}

/**
 * Called by the host at its start, before it serves: a start after a death is recorded and counted, waits its
 * back-off, and says so; the 5th death within 3 minutes gives up. `ide` is the end's `hello.ide.name`, for its words.
 */
export async function hostRestart(ide: string, options: HostRestartOptions = {}): Promise<HostRestart> {
  const env = options.env ?? process.env;
  const died = env[HOST_DIED_ENV];
  if (died === undefined) return { gaveUp: false, deaths: 0 };
  const logger = options.logger ?? silentLogger;
  const now = (options.now ?? Date.now)();
  const { maxDeaths, windowMs, backoffMs } = HOST_RESTART_POLICY;
  const file = recordFile(options);
  const deaths = [...readDeaths(file).filter((t) => t <= now && now - t < windowMs), now].slice(-maxDeaths);
  let recorded = true;
  try {
    ensurePrivateDirectory(path.dirname(path.dirname(file)));
    ensurePrivateDirectory(path.dirname(file));
    writeFileAtomicPrivate(file, JSON.stringify({ deaths }));
    sweepDeadPidEntries(path.dirname(file), (name) => (/^\d+\.json$/.test(name) ? Number.parseInt(name, 10) : undefined));
  } catch (err) {
    // Uncounted, the host still restarts, at the slowest pace: never faster than once per longest back-off.
    recorded = false;
    logger.warn('could not record the host restart', { error: describeError(err) });
  }
  const how = hostEnded(died, signalName);
  const kept = keptFiles(env[HOST_KEPT_ENV]);
  if (deaths.length >= maxDeaths) {
    const message = hostRestartWords.notRestarted(ide, how, kept, deaths.length);
    logger.error('the host gives up', { deaths: deaths.length, windowMs });
    return { said: { level: 'error', message }, gaveUp: true, deaths: deaths.length };
  }
  const wait = recorded ? backoffMs[deaths.length - 1]! : backoffMs[backoffMs.length - 1]!;
  logger.warn('the host restarts', { deaths: deaths.length, backoffMs: wait });
  if (wait > 0) await (options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))))(wait);
  return { said: { level: 'warning', message: hostRestartWords.restarted(ide, how, kept) }, gaveUp: false, deaths: deaths.length };
}

/** The host stopped cleanly (its end closed it): the editor's deaths are forgotten. */
export function hostStoppedCleanly(options: Pick<HostRestartOptions, 'editorPid' | 'tmpdir'> = {}): void {
  try {
    fs.rmSync(recordFile(options), { force: true });
  } catch {
    // Nothing to forget.
  }
}
