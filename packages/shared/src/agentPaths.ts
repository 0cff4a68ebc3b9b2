/**
 * Where each agent looks for a companion, apart from the code that writes
 * the files (qwen.ts, claude.ts): `list` and `doctor` read these without
 * loading the writers.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { CLAUDE_ENV } from '@ide-companion/protocol';

export const QWEN_ENV = {
  SERVER_PORT: 'QWEN_CODE_IDE_SERVER_PORT',
  WORKSPACE_PATH: 'QWEN_CODE_IDE_WORKSPACE_PATH',
} as const;

/** The agents a companion can serve; Gemini CLI's face is the core one (docs/agents.md). */
export const AGENTS = ['gemini', 'qwen', 'claude'] as const;
export type AgentName = (typeof AGENTS)[number];
/** The user's choice of agents for every end (`gemini,qwen,claude`); an end's own option wins. */
export const AGENTS_ENV = 'IDE_COMPANION_AGENTS';
export const AGENT_DISPLAY_NAMES: Readonly<Record<AgentName, string>> = { gemini: 'Gemini CLI', qwen: 'Qwen Code', claude: 'Claude Code' };

/**
 * Parses a user's list of agents ("gemini,qwen,claude", any case, spaces
 * allowed; "all"). Throws naming the unknown ones. Gemini CLI is always in.
 */
export function parseAgents(text: string): AgentName[] {
  const words = text
    .split(/[\s,]+/)
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w !== '');
  if (words.includes('all')) return [...AGENTS];
  const unknown = words.filter((w) => !(AGENTS as readonly string[]).includes(w));
  if (unknown.length > 0) throw new Error(`unknown agent ${unknown.map((w) => JSON.stringify(w)).join(', ')}: choose from ${AGENTS.join(', ')}`);
  return AGENTS.filter((a) => a === 'gemini' || words.includes(a));
}

/** Qwen Code's folder of lock files, as its Storage.getGlobalIdeDir() finds it: $QWEN_HOME/ide, else ~/.qwen/ide. */
export function qwenIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env['QWEN_HOME'];
  if (home) return path.join(path.resolve(home), 'ide');
  return path.join(os.homedir() || os.tmpdir(), '.qwen', 'ide');
}

/** Claude Code's folder of lock files: $CLAUDE_CONFIG_DIR/ide, else ~/.claude/ide. */
export function claudeIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  const config = env[CLAUDE_ENV.CONFIG_DIR];
  if (config) return path.join(path.resolve(config), 'ide');
  return path.join(os.homedir() || os.tmpdir(), '.claude', 'ide');
}

/**
 * Whether the user set the agent's own variable for its folder (QWEN_HOME,
 * CLAUDE_CONFIG_DIR): a user of that agent, whose folder may be made.
 */
export function agentHomeFromEnv(agent: 'qwen' | 'claude', env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[agent === 'qwen' ? 'QWEN_HOME' : CLAUDE_ENV.CONFIG_DIR]);
}

/** An agent's lock file name for a companion on `port` (Qwen's and Claude's alike). */
export function portLockFileName(port: number): string {
  return `${port}.lock`;
}
