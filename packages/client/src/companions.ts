/**
 * Every companion on this machine, from the discovery directory: the IDE, PID,
 * port, workspace, and whether it is alive (PID running, port accepting).
 * Unlike discovery this ignores the cwd and shows other users' files too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_NOT_SERVED_REASONS, LOOPBACK_HOST, splitWorkspacePath, type AgentNotServedReason, type IdeInfo } from '@ide-companion/protocol';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { discoveryDirectory, listDiscoveryDir, readDiscoveryFile } from './discoveryFiles.js';
import {
  AGENTS,
  ampIdeDir,
  claudeIdeDir,
  copilotIdeDir,
  droidIdeDir,
  LOCK_FILE_NAMING,
  qwenIdeDir,
  type AgentName,
  type LockFileAgent,
} from '@ide-companion/shared/agentPaths';

export interface CompanionListing {
  file: string;
  pid: number;
  port?: number;
  ide?: IdeInfo;
  workspacePath?: string;
  roots: string[];
  ownerUid?: number;
  ownedByUser: boolean;
  pidAlive: boolean;
  /** Something accepts TCP connections on the port (undefined: not checked or no port). */
  portOpen?: boolean;
  /** A problem with the file itself. */
  problem?: string;
  /**
   * The agents it serves: as its discovery file says (ours say, Codex CLI
   * included), else Gemini CLI, and Qwen Code, Claude Code, Copilot CLI and
   * Amp when their lock files for its port name its IDE's PID (docs/agents.md).
   */
  agents: AgentName[];
  /** Each agent it does not serve, and why, as its discovery file says (empty when it says nothing). */
  notServed: Partial<Record<AgentName, AgentNotServed>>;
}

export interface AgentNotServed {
  why: AgentNotServedReason;
  /** `folder missing`: the folder awaited. */
  folder?: string;
  /** `refused`: what was refused. */
  detail?: string;
}

/** What a discovery file of ours says of its agents (`agents`), read loosely: anything unexpected is left out. */
export function declaredAgents(
  json: Record<string, unknown> | undefined,
): { served: AgentName[]; notServed: Partial<Record<AgentName, AgentNotServed>> } | undefined {
  const agents = json?.['agents'] as { served?: unknown; notServed?: unknown } | undefined;
  if (typeof agents !== 'object' || agents === null || !Array.isArray(agents.served)) return undefined;
  const known = (a: unknown): a is AgentName => typeof a === 'string' && (AGENTS as readonly string[]).includes(a);
  const served = AGENTS.filter((a) => a === 'gemini' || (agents.served as unknown[]).includes(a));
  const notServed: Partial<Record<AgentName, AgentNotServed>> = {};
  if (typeof agents.notServed === 'object' && agents.notServed !== null) {
    for (const [agent, value] of Object.entries(agents.notServed as Record<string, unknown>)) {
      const v = value as { why?: unknown; folder?: unknown; detail?: unknown } | null;
      if (!known(agent) || served.includes(agent) || typeof v !== 'object' || v === null) continue;
      if (!(AGENT_NOT_SERVED_REASONS as readonly unknown[]).includes(v.why)) continue;
      notServed[agent] = {
        why: v.why as AgentNotServedReason,
        ...(typeof v.folder === 'string' && { folder: v.folder }),
        ...(typeof v.detail === 'string' && { detail: v.detail }),
      };
    }
  }
  return { served, notServed };
}

/** True when a TCP connection to host:port succeeds within timeoutMs. */
export async function portAccepts(port: number, host = LOOPBACK_HOST, timeoutMs = 1000): Promise<boolean> {
  // Loaded here: a listing with no discovery files opens no socket.
  const net = await import('node:net');
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Whether `agent`'s lock file for `port` (in `dir`) names the IDE `pid` in its pid field: the same companion serves that agent. */
function servesAgent(agent: LockFileAgent, dir: string, port: number | undefined, pid: number): boolean {
  if (port === undefined) return false;
  const { fileName, pidField } = LOCK_FILE_NAMING[agent];
  try {
    const lock = JSON.parse(fs.readFileSync(path.join(dir, fileName(port)), 'utf8')) as Record<string, unknown>;
    return lock[pidField] === pid;
  } catch {
    return false;
  }
}

/** The agents a companion on `port`, of the IDE `pid`, serves: Gemini CLI, and each agent whose lock file names them. */
export function agentsServed(port: number | undefined, pid: number, env: NodeJS.ProcessEnv = process.env): AgentName[] {
  return AGENTS.filter(
    (agent) =>
      agent === 'gemini' ||
      (agent !== 'codex' &&
        (LOCK_FILE_NAMING[agent].ownPort
          ? lockFileNamingPid(agent, LOCK_DIRS[agent](env), pid) !== undefined
          : servesAgent(agent, LOCK_DIRS[agent](env), port, pid))),
  );
}

/**
 * The lock file of `agent` in `dir` naming the IDE `pid`, whatever port names it (a face's own port: Factory Droid's);
 * `agentsServed` and `check` both find it so.
 */
export function lockFileNamingPid(agent: LockFileAgent, dir: string, pid: number): string | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const { fileName } = LOCK_FILE_NAMING[agent];
  // A folder of a few files; bounded all the same. A name is the agent's when its port names it back.
  const found = names.slice(0, 256).find((name) => {
    const port = Number(/^\d{1,5}(?=\.)/.exec(name)?.[0]);
    return Number.isInteger(port) && fileName(port) === name && servesAgent(agent, dir, port, pid);
  });
  return found === undefined ? undefined : path.join(dir, found);
}

/** Where each agent with lock files looks for them. Codex CLI has none: one socket per user, routed to every companion (codexSocketPath). */
const LOCK_DIRS = { qwen: qwenIdeDir, claude: claudeIdeDir, copilot: copilotIdeDir, amp: ampIdeDir, droid: droidIdeDir } as const satisfies Record<
  Exclude<AgentName, 'gemini' | 'codex'>,
  unknown
> satisfies Record<LockFileAgent, unknown>;

export async function listCompanions(
  options: { tmpdir?: string; probePorts?: boolean; host?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CompanionListing[]> {
  const env = options.env ?? process.env;
  const listings = listDiscoveryDir(discoveryDirectory(options.tmpdir)).files.map(({ path: file, name }): CompanionListing => {
    const read = readDiscoveryFile(file);
    const json = read.json;
    const listing: CompanionListing = {
      file,
      pid: name.pid,
      // The content's port when it names a number, else the one in the name.
      port: typeof json?.['port'] === 'number' ? json['port'] : name.port,
      roots: [],
      ownerUid: read.ownerUid,
      ownedByUser: read.ownedByUser,
      pidAlive: isProcessAlive(name.pid),
      ide: read.ideInfo,
      problem: read.readError,
      agents: [],
      notServed: {},
    };
    const declared = declaredAgents(json);
    listing.agents = declared?.served ?? agentsServed(listing.port, listing.pid, env);
    listing.notServed = declared?.notServed ?? {};
    if (read.workspacePath !== undefined) {
      listing.workspacePath = read.workspacePath;
      listing.roots = splitWorkspacePath(read.workspacePath, path.delimiter);
    }
    return listing;
  });
  if (options.probePorts ?? true) {
    await Promise.all(
      listings.map(async (l) => {
        if (l.port !== undefined) l.portOpen = await portAccepts(l.port, options.host);
      }),
    );
  }
  return listings.sort((a, b) => b.pid - a.pid);
}
