/**
 * Which agents beyond Gemini CLI a companion serves, and why not the others:
 * the lock files of Qwen Code, Claude Code, Amp and Copilot CLI, and the
 * agents awaited because their folder is missing. Unnamed, an agent is served
 * only to a user who has it (its folder, or its variable): nothing is made in
 * anyone else's home (docs/agents.md). One first run after the editor started
 * (issue 39) is served once its folder appears (folderArrivals.ts), not at the
 * editor's next start; Copilot CLI's socket and Codex CLI's router are the
 * companion's to serve then (`serveLate`), the lock files this roster's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentNotServedReason, AmpLockFile, ClaudeLockFile } from '@ide-companion/protocol';
import { AMP_ENV } from '@ide-companion/protocol';
import {
  AGENT_DISPLAY_NAMES,
  AGENTS,
  AGENTS_ENV,
  agentHomeFromEnv,
  ampIdeDir,
  ampLockFileName,
  claudeIdeDir,
  codexHome,
  copilotIdeDir,
  opencodeDataDir,
  servedAgentNames,
  userHasAmp,
  userHasCodex,
  userHasCopilot,
  userHasOpencode,
  type AgentName,
} from '@ide-companion/shared/agentPaths';
import { FolderArrivals } from './folderArrivals.js';
import { describeError, type Logger } from './logger.js';
import { startReaper, type Reaper } from './reaper.js';
import { sweepStaleAmpLockFiles } from './faces/amp.js';
import { sweepStaleClaudeLockFiles } from './faces/claude.js';
import type { CopilotLockFile } from './faces/copilot.js';
import { PortLockFile } from './faces/lockFile.js';
import { qwenIdeDir, sweepStaleQwenLockFiles, type QwenLockFile } from './faces/qwen.js';

/** The agents served through a lock file of the companion's, and what each holds. */
export interface LockContents {
  qwen: QwenLockFile;
  claude: ClaudeLockFile;
  amp: AmpLockFile;
  copilot: CopilotLockFile;
}
type LockAgent = keyof LockContents;
/** The agents whose lock file waits for their folder (Copilot's is made with its socket). */
type ParkedAgent = Exclude<LockAgent, 'copilot'>;
const LOCK_AGENTS = ['qwen', 'claude', 'copilot', 'amp'] as const satisfies readonly LockAgent[];

export type AgentsNotServed = Partial<Record<AgentName, { why: AgentNotServedReason; folder?: string; detail?: string }>>;

export interface AgentRosterOptions {
  logger: Logger;
  /** The agents asked for (Gemini CLI's always among them). */
  wanted: readonly AgentName[];
  /** The agents the user named (`agents`, IDE_COMPANION_AGENTS); undefined: the default. A named agent's folder is made when missing. */
  chosen: readonly AgentName[] | undefined;
  /** Where the lock files go, for tests (a folder given counts as named). */
  dirs: { qwen?: string | undefined; claude?: string | undefined; amp?: string | undefined };
  /** Start a reaper for the lock files written after start (CompanionOptions.reapOnKill). */
  reapOnKill: boolean;
  /** Codex CLI's face, when asked for: served unless refused (or awaited). */
  codex: { readonly refusal: string | undefined } | undefined;
  /** Settles true once the companion runs, false when it stopped (or failed to start). */
  running: () => Promise<boolean>;
  /** Copilot CLI's socket, Codex CLI's router: served once its folder appeared. */
  serveLate: (agent: 'copilot' | 'codex') => Promise<void>;
  /** An agent was served after start: the companion rewrites its discovery file (and the lock files, `writeLocks`). */
  changed: () => void;
}

export class AgentRoster {
  /** The lock files written with the discovery file; one dropped (refused, or its folder missing) costs its agent alone. */
  readonly locks: { -readonly [A in LockAgent]?: PortLockFile<LockContents[A]> } = {};
  /** Why an agent asked for is not served: its folder or socket refused (said in the log too). */
  readonly refusals = new Map<AgentName, string>();
  private arrivals: FolderArrivals<AgentName | 'opencode'> | undefined;
  /** A waiting agent's lock file, until its folder appears. */
  private readonly parked = new Map<ParkedAgent, PortLockFile<never>>();
  /** Reapers of the lock files written after start (an agent whose folder appeared). */
  private readonly lateReapers: Reaper[] = [];
  private readonly listeners = new Set<(agents: AgentName[]) => void>();
  private port = 0;

  constructor(private readonly options: AgentRosterOptions) {}

  /** At start, once the port is known: the lock files of Qwen Code, Claude Code and Amp (written with the discovery file). */
  open(port: number, faces: { claude: boolean; amp: boolean }): void {
    this.port = port;
    const { wanted, dirs } = this.options;
    if (wanted.includes('qwen')) this.locks.qwen = this.lockFor('qwen', dirs.qwen ?? qwenIdeDir(), sweepStaleQwenLockFiles);
    if (faces.claude) this.locks.claude = this.lockFor('claude', dirs.claude ?? claudeIdeDir(), sweepStaleClaudeLockFiles);
    // Unnamed, Amp is served only to a user who has it (its data folder, or its variables): no ~/.local/share/amp for others.
    if (faces.amp && !this.named('amp', undefined) && !userHasAmp()) this.awaitFolder('amp', path.dirname(ampIdeDir()));
    else if (faces.amp) this.makeAmpLock();
  }

  /** Unnamed, Copilot CLI and Codex CLI are served only to a user who has them: true when awaited instead (no ~/.copilot, ~/.codex made). */
  awaits(agent: 'copilot' | 'codex'): boolean {
    if (this.options.chosen?.includes(agent) ?? false) return false;
    if (agent === 'copilot' ? userHasCopilot() : userHasCodex()) return false;
    this.awaitFolder(agent, agent === 'copilot' ? path.dirname(copilotIdeDir()) : codexHome());
    return true;
  }

  /** Each lock file written (the discovery file's companions): one whose folder is missing is parked, one refused dropped. */
  writeLocks(contents: { [A in LockAgent]: () => LockContents[A] }): void {
    for (const agent of LOCK_AGENTS) {
      const lock = this.locks[agent] as PortLockFile<unknown> | undefined;
      if (!lock) continue;
      try {
        if (!lock.write(contents[agent]()) && agent !== 'copilot') this.park(agent);
      } catch (err) {
        const name = agent === 'copilot' ? 'Copilot CLI' : AGENT_DISPLAY_NAMES[agent];
        this.refused(agent, `no ${name} lock file: its folder was refused`, err);
        this.locks[agent] = undefined;
      }
    }
  }

  refused(agent: AgentName, message: string, err: unknown): void {
    this.refusals.set(agent, describeError(err));
    this.options.logger.warn(message, { error: describeError(err) });
  }

  /** The agents served now. */
  served(): AgentName[] {
    const { codex } = this.options;
    return this.options.wanted.filter(
      (a) =>
        a === 'gemini' ||
        (a === 'codex' ? codex !== undefined && codex.refusal === undefined && !this.arrivals?.pending.has('codex') : this.locks[a] !== undefined),
    );
  }

  /**
   * Each agent not served, and why: not chosen (the user's `agents` or
   * IDE_COMPANION_AGENTS left it out), its folder missing (served once it
   * appears), or refused (its folder or socket; said in the log).
   */
  notServed(): AgentsNotServed {
    const served = this.served();
    const out: AgentsNotServed = {};
    for (const agent of AGENTS) {
      if (served.includes(agent)) continue;
      const folder = this.arrivals?.pending.get(agent) ?? (agent === 'claude' ? this.arrivals?.pending.get('opencode') : undefined);
      const detail = agent === 'codex' ? (this.options.codex?.refusal ?? this.refusals.get(agent)) : this.refusals.get(agent);
      out[agent] = !this.options.wanted.includes(agent)
        ? { why: 'not chosen' }
        : folder !== undefined
          ? { why: 'folder missing', folder }
          : { why: 'refused', ...(detail !== undefined && { detail }) };
    }
    return out;
  }

  /** Called when an agent becomes served after start (its folder appeared), with every agent served. */
  onDidChange(listener: (agents: AgentName[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The lock files written (what a reaper removes). */
  paths(): string[] {
    return LOCK_AGENTS.flatMap((a) => this.locks[a]?.path ?? []);
  }

  /** On stop (or exit): nothing awaited or heard any more, the lock files gone. */
  removeSync(): void {
    this.arrivals?.close();
    this.listeners.clear();
    for (const reaper of this.lateReapers.splice(0)) reaper.dispose();
    for (const agent of LOCK_AGENTS) this.locks[agent]?.removeSync();
  }

  private lockFor<A extends 'qwen' | 'claude'>(agent: A, dir: string, sweep: (dir: string) => string[]): PortLockFile<LockContents[A]> {
    const swept = sweep(dir);
    if (swept.length > 0) this.options.logger.info(`removed ${AGENT_DISPLAY_NAMES[agent]} lock files of dead processes`, { files: swept });
    return new PortLockFile(dir, this.port, this.named(agent, this.options.dirs[agent]));
  }

  /** Amp's lock file (written with the discovery file). */
  private makeAmpLock(): void {
    const ampDir = this.options.dirs.amp ?? ampIdeDir();
    const swept = sweepStaleAmpLockFiles(ampDir);
    if (swept.length > 0) this.options.logger.info('removed Amp lock files of dead processes', { files: swept });
    const named = this.named('amp', this.options.dirs.amp);
    // Amp's folder is in the user's data home (~/.local/share), itself made when missing for a user who named Amp.
    if (named) {
      try {
        fs.mkdirSync(path.dirname(path.dirname(ampDir)), { recursive: true, mode: 0o700 });
      } catch {
        // Refused: the lock file's write says why, and Amp alone is not served.
      }
    }
    this.locks.amp = new PortLockFile(ampDir, this.port, named, ampLockFileName);
  }

  /** Whether the user named `agent`, or its folder (its own variable; a test's option): then that folder is made when missing. */
  private named(agent: ParkedAgent, givenDir: string | undefined): boolean {
    const { chosen } = this.options;
    // Amp's variables: its data folder's, or the CLI's access token (a user of Amp, whose CLI makes that folder too).
    const fromEnv = agent === 'amp' ? Boolean(process.env[AMP_ENV.DATA_HOME] || process.env[AMP_ENV.API_KEY]) : agentHomeFromEnv(agent);
    // opencode reads Claude Code's lock files: a user who has opencode gets ~/.claude/ide, where it looks.
    const borrower = agent === 'claude' && chosen === undefined && userHasOpencode();
    return givenDir !== undefined || fromEnv || borrower || (chosen?.includes(agent) ?? false);
  }

  /**
   * An agent with no config folder here, not named: not served yet, and
   * nothing made in the user's home (docs/agents.md); its lock file is written
   * once the folder appears (the agent's first run).
   */
  private park(agent: ParkedAgent): void {
    const lock = this.locks[agent] as PortLockFile<never>;
    this.parked.set(agent, lock);
    this.locks[agent] = undefined;
    this.awaitFolder(agent, path.dirname(lock.dir));
    // opencode's first run serves it too (its data folder), unless the user chose the agents.
    if (agent === 'claude' && this.options.chosen === undefined) this.awaitFolder('opencode', opencodeDataDir());
  }

  /** Serves `agent` once `folder` appears (said in the log now, and then). */
  private awaitFolder(agent: AgentName | 'opencode', folder: string): void {
    if (agent === 'opencode') {
      this.arrivals?.add('opencode', folder);
      return;
    }
    this.options.logger.info(
      `${servedAgentNames([agent]).join(' and ')} not served yet: no ${folder} here; served as soon as it appears (the agent's first run makes it), or name it in \`agents\` or ${AGENTS_ENV} to serve it now`,
    );
    this.arrivals ??= new FolderArrivals<AgentName | 'opencode'>((arrived) => void this.folderArrived(arrived));
    this.arrivals.add(agent, folder);
  }

  /** An awaited agent's folder appeared: its lock file, socket or router, then the discovery file saying so. */
  private async folderArrived(arrived: AgentName | 'opencode'): Promise<void> {
    if (!(await this.options.running())) return;
    // opencode's folder: Claude Code's face, its ~/.claude/ide made (where opencode looks); its own folder is no longer awaited.
    const agent: AgentName = arrived === 'opencode' ? 'claude' : arrived;
    if (arrived === 'opencode') {
      const parked = this.parked.get('claude');
      if (!parked) return;
      this.parked.set('claude', new PortLockFile(parked.dir, parked.port, true) as PortLockFile<never>);
      this.arrivals?.delete('claude');
    } else if (arrived === 'claude') this.arrivals?.delete('opencode');
    const before = this.paths();
    if (agent === 'copilot' || agent === 'codex') await this.options.serveLate(agent);
    else if (agent !== 'gemini') {
      const lock = this.parked.get(agent);
      this.parked.delete(agent);
      if (agent === 'amp' && !lock) this.makeAmpLock();
      else this.locks[agent] = lock;
    }
    if (!(await this.options.running())) return;
    this.options.changed();
    const served = this.served();
    if (served.includes(agent))
      this.options.logger.info(`${servedAgentNames([agent]).join(' and ')} served: ${arrived === 'opencode' ? "opencode's" : 'its'} folder appeared`);
    const added = this.paths().filter((p) => !before.includes(p));
    if (this.options.reapOnKill && added.length > 0) {
      const reaper = await startReaper(added);
      if (reaper) this.lateReapers.push(reaper);
    }
    for (const listener of this.listeners) listener(served);
  }
}
