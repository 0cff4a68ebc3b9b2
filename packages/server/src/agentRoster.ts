/**
 * Which agents beyond Gemini CLI a companion serves, and why not the others,
 * by one rule for every face (faces/agentFace.ts). Unnamed, an agent is
 * served only to a user who has it (its folder, or its variables): nothing is
 * made in anyone else's home (docs/agents.md). One first run after the editor
 * started (issue 39) is served once its folder appears (folderArrivals.ts),
 * not at the editor's next start. A face's lock file is written with the
 * discovery file; one whose folder went is awaited again.
 */
import * as fs from 'node:fs';
import type { AgentNotServedReason } from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES, AGENTS, AGENTS_ENV, servedAgentNames, type AgentName } from '@ide-companion/shared/agentPaths';
import type { AgentFace } from './faces/agentFace.js';
import { PortLockFile } from './faces/lockFile.js';
import { FolderArrivals } from './folderArrivals.js';
import { describeError, type Logger } from './logger.js';
import { startReaper, type Reaper } from './reaper.js';

export type AgentsNotServed = Partial<Record<AgentName, { why: AgentNotServedReason; folder?: string; detail?: string }>>;

export interface AgentRosterOptions {
  logger: Logger;
  /** The faces of the agents asked for (Gemini CLI's, the core, is always served and has none). */
  faces: readonly AgentFace[];
  /** The agents asked for (Gemini CLI's always among them). */
  wanted: readonly AgentName[];
  /** The agents the user named (`agents`, IDE_COMPANION_AGENTS); undefined: the default. A named agent's folder is made when missing. */
  chosen: readonly AgentName[] | undefined;
  /** Start a reaper for the lock files written after start (CompanionOptions.reapOnKill). */
  reapOnKill: boolean;
  /** Settles true once the companion runs, false when it stopped (or failed to start). */
  running: () => Promise<boolean>;
  /** An agent was served after start: the companion rewrites its discovery file (and the lock files, `writeLocks`). */
  changed: () => void;
}

/** A folder awaited: the face it serves, and the borrower whose folder it is (the face's lock folder is made then). */
interface Awaited {
  face: AgentFace;
  borrower?: string;
}

export class AgentRoster {
  /** The lock files written with the discovery file; one dropped (refused, or its folder missing) costs its agent alone. */
  private readonly locks = new Map<AgentName, PortLockFile<unknown>>();
  /** The faces served (their socket made, their lock file written or to be). */
  private readonly serving = new Set<AgentName>();
  /** Why an agent asked for is not served: its folder or socket refused (said in the log too). */
  private readonly refusals = new Map<AgentName, string>();
  private arrivals: FolderArrivals<string> | undefined;
  /** What each awaited folder's key serves. */
  private readonly awaited = new Map<string, Awaited>();
  /** Reapers of the lock files written after start (an agent whose folder appeared). */
  private readonly lateReapers: Reaper[] = [];
  private readonly listeners = new Set<(agents: AgentName[]) => void>();
  private port = 0;

  constructor(private readonly options: AgentRosterOptions) {}

  /** At start, once the port is known: each face served, or awaited (its folder missing), or refused. */
  async open(port: number): Promise<void> {
    this.port = port;
    for (const face of this.options.faces) {
      if (this.named(face) || fs.existsSync(face.discovery.home)) await this.serve(face);
      else this.awaitFolders(face);
    }
  }

  /** Each lock file written (the discovery file's companions): one whose folder is missing is awaited again, one refused dropped. */
  writeLocks(): void {
    for (const face of this.options.faces) {
      const lock = this.locks.get(face.agent);
      if (!lock) continue;
      try {
        if (lock.write(face.lock!.contents())) continue;
        this.locks.delete(face.agent);
        this.serving.delete(face.agent);
        this.awaitFolders(face);
      } catch (err) {
        this.refused(face.agent, `no ${AGENT_DISPLAY_NAMES[face.agent]} lock file: its folder was refused`, err);
        this.locks.delete(face.agent);
        this.serving.delete(face.agent);
      }
    }
  }

  /** The agents served now. */
  served(): AgentName[] {
    return this.options.wanted.filter((a) => a === 'gemini' || (this.serving.has(a) && this.faceOf(a)?.refusal?.() === undefined));
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
      const folder = [...this.awaited].find(([, a]) => a.face.agent === agent && a.borrower === undefined)?.[0];
      const detail = this.faceOf(agent)?.refusal?.() ?? this.refusals.get(agent);
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

  /** `agent`'s lock file, when written. */
  lockPath(agent: AgentName): string | undefined {
    return this.locks.get(agent)?.path;
  }

  /** The lock files written (what a reaper removes). */
  paths(): string[] {
    return [...this.locks.values()].map((lock) => lock.path);
  }

  /** On stop (or exit): nothing awaited or heard any more, the lock files gone. */
  removeSync(): void {
    this.arrivals?.close();
    this.listeners.clear();
    for (const reaper of this.lateReapers.splice(0)) reaper.dispose();
    for (const lock of this.locks.values()) lock.removeSync();
  }

  /** `face`'s lock file written again with what it holds now (its own change: Amp's token); false when not held or not written. */
  private rewriteLock(face: AgentFace): boolean {
    const lock = this.locks.get(face.agent);
    if (!lock || !face.lock) return false;
    try {
      return lock.write(face.lock.contents());
    } catch (err) {
      this.options.logger.warn(`could not rewrite the ${AGENT_DISPLAY_NAMES[face.agent]} lock file`, { error: describeError(err) });
      return false;
    }
  }

  private faceOf(agent: AgentName): AgentFace | undefined {
    return this.options.faces.find((f) => f.agent === agent);
  }

  private refused(agent: AgentName, message: string, err: unknown): void {
    this.refusals.set(agent, describeError(err));
    this.options.logger.warn(message, { error: describeError(err) });
  }

  /** Whether the user named `face`'s agent (`agents`, its own variables, a borrower's folder): its folders are made then. */
  private named(face: AgentFace): boolean {
    const { chosen } = this.options;
    if (chosen?.includes(face.agent) || face.discovery.namedByEnv) return true;
    return chosen === undefined && (face.discovery.borrowers ?? []).some((b) => fs.existsSync(b.home));
  }

  /** Its socket or router, then its lock file (written with the discovery file); a refusal costs this agent alone. */
  private async serve(face: AgentFace, named = this.named(face)): Promise<void> {
    try {
      await face.serve?.();
    } catch (err) {
      this.refused(face.agent, `${AGENT_DISPLAY_NAMES[face.agent]} is not served: ${describeError(err)}`, err);
      return;
    }
    this.refusals.delete(face.agent);
    const { lock } = face;
    if (lock) {
      const swept = lock.sweep(lock.dir);
      if (swept.length > 0) this.options.logger.info(`removed ${AGENT_DISPLAY_NAMES[face.agent]} lock files of dead processes`, { files: swept });
      if (named) lock.prepare?.();
      this.locks.set(face.agent, new PortLockFile(lock.dir, this.port, named, lock.fileName));
      lock.rewriter?.(() => this.rewriteLock(face));
    }
    this.serving.add(face.agent);
  }

  /**
   * An agent with no folder here, not named: not served yet, and nothing
   * made in the user's home (docs/agents.md); served once its folder (or, by
   * default, a borrower's) appears: the agent's first run.
   */
  private awaitFolders(face: AgentFace): void {
    const { home, borrowers = [] } = face.discovery;
    this.options.logger.info(
      `${servedAgentNames([face.agent]).join(' and ')} not served yet: no ${home} here; served as soon as it appears (the agent's first run makes it), or name it in \`agents\` or ${AGENTS_ENV} to serve it now`,
    );
    this.arrivals ??= new FolderArrivals<string>((key) => void this.folderArrived(key));
    this.awaited.set(home, { face });
    this.arrivals.add(home, home);
    if (this.options.chosen !== undefined) return;
    for (const { name, home: folder } of borrowers) {
      this.awaited.set(folder, { face, borrower: name });
      this.arrivals.add(folder, folder);
    }
  }

  /** An awaited folder appeared: its face served (its lock folder made for a borrower), then the discovery file saying so. */
  private async folderArrived(folder: string): Promise<void> {
    const arrived = this.awaited.get(folder);
    if (!arrived || !(await this.options.running())) return;
    const { face, borrower } = arrived;
    // The face's other folders are no longer awaited.
    for (const [key, a] of [...this.awaited]) {
      if (a.face !== face) continue;
      this.awaited.delete(key);
      this.arrivals?.delete(key);
    }
    const before = this.paths();
    await this.serve(face, borrower !== undefined || this.named(face));
    if (!(await this.options.running())) return;
    this.options.changed();
    const served = this.served();
    if (served.includes(face.agent))
      this.options.logger.info(`${servedAgentNames([face.agent]).join(' and ')} served: ${borrower !== undefined ? `${borrower}'s` : 'its'} folder appeared`);
    const added = this.paths().filter((p) => !before.includes(p));
    if (this.options.reapOnKill && added.length > 0) {
      const reaper = await startReaper(added);
      if (reaper) this.lateReapers.push(reaper);
    }
    for (const listener of this.listeners) listener(served);
  }
}
