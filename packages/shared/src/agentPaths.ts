/**
 * Where each agent looks for a companion, apart from the code that writes
 * the files (qwen.ts, claude.ts): `list` and `doctor` read these without
 * loading the writers.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AMP_ENV, CLAUDE_ENV, DROID_IDE_DIR } from '@ide-companion/protocol/agentEnv';
import { CODEX_ENV, CODEX_IPC } from '@ide-companion/protocol/codexFrames';

export const QWEN_ENV = {
  SERVER_PORT: 'QWEN_CODE_IDE_SERVER_PORT',
  WORKSPACE_PATH: 'QWEN_CODE_IDE_WORKSPACE_PATH',
} as const;

/** The agents a companion can serve, each a face; Gemini CLI's face is the core one (docs/agents.md). */
export const AGENTS = ['gemini', 'qwen', 'claude', 'copilot', 'codex', 'amp', 'droid'] as const;
export type AgentName = (typeof AGENTS)[number];
/**
 * Agents that use another's face: opencode reads Claude Code's lock files
 * and speaks to its WebSocket, told apart by its initialize's clientInfo.
 */
export const FACE_OF = { opencode: 'claude' } as const satisfies Record<string, AgentName>;
/** Who a session is: a face's own agent, or one that borrows a face. */
export type SessionAgent = AgentName | keyof typeof FACE_OF;
/** Who the faces `agents` serve, by name: each face's own agent, then the agents that borrow it ("Claude Code, opencode"). */
export function servedAgentNames(agents: readonly AgentName[]): string[] {
  return agents.flatMap((face) => [
    AGENT_DISPLAY_NAMES[face],
    ...Object.entries(FACE_OF)
      .filter(([, owner]) => owner === face)
      .map(([borrower]) => AGENT_DISPLAY_NAMES[borrower as SessionAgent]),
  ]);
}

/** The user's choice of agents for every end (`gemini,claude,codex`: any of parseAgents' names); an end's own option wins. */
export const AGENTS_ENV = 'IDE_COMPANION_AGENTS';
export const AGENT_DISPLAY_NAMES: Readonly<Record<SessionAgent, string>> = {
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  claude: 'Claude Code',
  copilot: 'GitHub Copilot CLI',
  codex: 'Codex CLI',
  amp: 'Amp',
  droid: 'Factory Droid',
  opencode: 'opencode',
};
/**
 * How each agent, run in another terminal of the folder, finds the companion, as one clause: serve's banner says the
 * served faces' (FaceDefinition.connectHint takes it from here), doctor the same words. Gemini CLI's is serve's own line.
 */
export const AGENT_CONNECT_HINTS: Readonly<Record<Exclude<AgentName, 'gemini'>, string>> = {
  qwen: 'qwen there finds it too',
  claude: 'claude there connects with --ide (or /ide), opencode by itself',
  copilot: 'copilot there connects with /ide',
  codex: 'codex there takes the context with /ide',
  amp: 'amp there connects with --ide',
  droid: 'droid there connects with /ide (or its ideAutoConnect setting)',
};

/** The agents' names where room is short (Emacs's mode line). */
export const AGENT_SHORT_NAMES: Readonly<Record<SessionAgent, string>> = {
  gemini: 'Gemini',
  qwen: 'Qwen',
  claude: 'Claude',
  copilot: 'Copilot',
  codex: 'Codex',
  amp: 'Amp',
  droid: 'Droid',
  opencode: 'opencode',
};

/** Who the faces `agents` serve, in words ("Qwen Code, Claude Code, opencode and Amp"): the ends' messages name no agent by hand. */
export function agentsInWords(agents: readonly AgentName[]): string {
  const names = servedAgentNames(agents);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The end of every installer's message: the agents besides Gemini CLI that find the companion too. */
export function otherAgentsFindIt(): string {
  return `${agentsInWords(AGENTS.filter((a) => a !== 'gemini'))} find it too (docs/agents.md)`;
}

/**
 * Parses a user's list of agents ("gemini,qwen,claude", any case, spaces
 * allowed; "all"; "opencode" turns on the face it uses, Claude Code's).
 * Throws naming the unknown ones. Gemini CLI is always in.
 */
export function parseAgents(text: string): AgentName[] {
  const words = text
    .split(/[\s,]+/)
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w !== '');
  if (words.includes('all')) return [...AGENTS];
  const known = [...AGENTS, ...Object.keys(FACE_OF)];
  const unknown = words.filter((w) => !known.includes(w));
  if (unknown.length > 0) throw new Error(`unknown agent ${unknown.map((w) => JSON.stringify(w)).join(', ')}: choose from ${known.join(', ')}`);
  const faces = words.map((w) => (w in FACE_OF ? FACE_OF[w as keyof typeof FACE_OF] : w));
  return AGENTS.filter((a) => a === 'gemini' || faces.includes(a));
}

/** Each agent's own variable naming its folder; empty, it names none (the agents then use their default). */
const HOME_VARIABLES = { qwen: 'QWEN_HOME', claude: CLAUDE_ENV.CONFIG_DIR, copilot: 'COPILOT_HOME' } as const;
/** Each agent's default folder, in the user's home. */
const HOME_FOLDERS: Readonly<Record<keyof typeof HOME_VARIABLES, string>> = { qwen: '.qwen', claude: '.claude', copilot: '.copilot' };

/** An agent's folder of lock files: `ide` in the folder its variable names, else in its default folder. */
function agentIdeDir(agent: keyof typeof HOME_VARIABLES, env: NodeJS.ProcessEnv): string {
  const home = env[HOME_VARIABLES[agent]];
  return path.join(home ? path.resolve(home) : path.join(os.homedir() || os.tmpdir(), HOME_FOLDERS[agent]), 'ide');
}

/** Qwen Code's folder of lock files, as its Storage.getGlobalIdeDir() finds it: $QWEN_HOME/ide, else ~/.qwen/ide. */
export function qwenIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  return agentIdeDir('qwen', env);
}

/** Claude Code's folder of lock files: $CLAUDE_CONFIG_DIR/ide, else ~/.claude/ide. */
export function claudeIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  return agentIdeDir('claude', env);
}

/**
 * Whether the user set the agent's own variable for its folder (QWEN_HOME,
 * CLAUDE_CONFIG_DIR, COPILOT_HOME): a user of that agent, whose folder may be made.
 */
export function agentHomeFromEnv(agent: keyof typeof HOME_VARIABLES, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[HOME_VARIABLES[agent]]);
}

/**
 * Whether the user has Copilot CLI (its folder, or COPILOT_HOME naming one):
 * only then is it served unless named, so no `~/.copilot` appears for a user
 * who never installed it.
 */
export function userHasCopilot(env: NodeJS.ProcessEnv = process.env): boolean {
  return agentHomeFromEnv('copilot', env) || fs.existsSync(path.dirname(copilotIdeDir(env)));
}

/**
 * Whether the user has Codex CLI ($CODEX_HOME set, or ~/.codex there): only
 * then is it served unless named, so no `~/.codex` appears for anyone else.
 */
export function userHasCodex(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[CODEX_ENV.HOME]) || fs.existsSync(path.join(os.homedir() || os.tmpdir(), '.codex'));
}

/** Codex CLI's home: $CODEX_HOME, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env[CODEX_ENV.HOME];
  return home ? path.resolve(home) : path.join(os.homedir() || os.tmpdir(), '.codex');
}

/** Whether the user set CODEX_HOME: a user of Codex CLI, whose folder may be made. */
export function codexHomeFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[CODEX_ENV.HOME]);
}

/** Codex CLI's IPC socket, the one 0.171.0 tries first: $CODEX_HOME/ipc/ipc.sock, else ~/.codex/ipc/ipc.sock. */
export function codexSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(codexHome(env), CODEX_IPC.dir, CODEX_IPC.socket);
}

/**
 * The sockets 0.171.0 tries after `codexSocketPath`, in order (an older router
 * of OpenAI's holds one): `TMPDIR/codex-ipc/ipc-UID.sock`, or for root
 * `ipc.sock` then `ipc-0.sock`.
 */
export function codexLegacySocketPaths(tmpdir: string = os.tmpdir()): string[] {
  const dir = path.join(tmpdir, CODEX_IPC.legacyDir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return uid === 0 ? [path.join(dir, CODEX_IPC.socket), path.join(dir, 'ipc-0.sock')] : [path.join(dir, `ipc-${uid}.sock`)];
}

/** GitHub Copilot CLI's folder of lock files: $COPILOT_HOME/ide, else ~/.copilot/ide. */
export function copilotIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  return agentIdeDir('copilot', env);
}

/**
 * Amp's data folder, as its CLI finds it: $XDG_DATA_HOME, else
 * ~/.local/share; AMP_DATA_HOME (amp.nvim's override, which the CLI does not
 * read) first, for tests.
 */
function ampDataHome(env: NodeJS.ProcessEnv): string {
  const override = env[AMP_ENV.DATA_HOME];
  if (override) return path.resolve(override);
  // The CLI reads XDG_DATA_HOME on every platform (amp.nvim skips it on Windows and macOS).
  const xdg = env[AMP_ENV.XDG_DATA_HOME];
  return xdg ? path.resolve(xdg) : path.join(os.homedir() || os.tmpdir(), '.local', 'share');
}

/** Amp's folder of lock files: `<data home>/amp/ide`. */
export function ampIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(ampDataHome(env), 'amp', 'ide');
}

/**
 * Whether the user has Amp (its `amp` data folder, AMP_DATA_HOME, or the
 * CLI's AMP_API_KEY set): only then is it served unless named, so no
 * `~/.local/share/amp` appears for others.
 */
export function userHasAmp(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[AMP_ENV.DATA_HOME]) || Boolean(env[AMP_ENV.API_KEY]) || fs.existsSync(path.dirname(ampIdeDir(env)));
}

/** opencode's data folder, as it finds it: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (made on its first run). */
export function opencodeDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env[AMP_ENV.XDG_DATA_HOME];
  return path.join(xdg ? path.resolve(xdg) : path.join(os.homedir() || os.tmpdir(), '.local', 'share'), 'opencode');
}

/**
 * Whether the user has opencode (its data folder): then Claude Code's face,
 * the one opencode uses, is served by default, its `~/.claude/ide` made if
 * missing, since that is where opencode itself looks (docs/agents.md).
 */
export function userHasOpencode(env: NodeJS.ProcessEnv = process.env): boolean {
  return fs.existsSync(opencodeDataDir(env));
}

/**
 * Factory Droid's folder of lock files: `~/.factory/ide` (os.homedir(), which
 * is $HOME, as the CLI reads it; its FACTORY_HOME_OVERRIDE does not move this folder).
 */
export function droidIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env['HOME'] || os.homedir() || os.tmpdir(), ...DROID_IDE_DIR);
}

export { ampLockFileName, LOCK_FILE_NAMING, portLockFileName, type LockFileAgent } from '@ide-companion/protocol/lockFileNames';
