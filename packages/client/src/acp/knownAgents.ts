/**
 * The ACP agents `ide-companion agent --list` looks for on PATH: each one's
 * command and the arguments that start it in ACP mode (as their docs give
 * them). A table, not a registry: any other agent runs with `agent -- CMD`.
 */
import { onPath } from '@ide-companion/shared/onPath';

export interface KnownAgent {
  /** What the user calls it. */
  name: string;
  command: string;
  /** The arguments that make it speak ACP on stdio. */
  args: readonly string[];
  /** Where it comes from, for a user who does not have it. */
  source: string;
}

export const KNOWN_ACP_AGENTS: readonly KnownAgent[] = [
  { name: 'Gemini CLI', command: 'gemini', args: ['--acp'], source: 'npm i -g @google/gemini-cli' },
  { name: 'Claude Code (ACP adapter)', command: 'claude-agent-acp', args: [], source: 'npm i -g @zed-industries/claude-agent-acp' },
  { name: 'Claude Code (older ACP adapter)', command: 'claude-code-acp', args: [], source: 'npm i -g @zed-industries/claude-code-acp' },
  { name: 'Codex (ACP adapter)', command: 'codex-acp', args: [], source: 'npm i -g @zed-industries/codex-acp' },
  { name: 'Qwen Code', command: 'qwen', args: ['--acp'], source: 'npm i -g @qwen-code/qwen-code' },
  { name: 'Goose', command: 'goose', args: ['acp'], source: 'block.github.io/goose' },
  { name: 'Kimi CLI', command: 'kimi', args: ['--acp'], source: 'pip install kimi-cli' },
  { name: 'OpenCode', command: 'opencode', args: ['acp'], source: 'npm i -g opencode-ai' },
  { name: 'Cursor agent', command: 'cursor-agent', args: ['acp'], source: 'cursor.com/cli' },
  { name: 'Auggie', command: 'auggie', args: ['--acp'], source: 'npm i -g @augmentcode/auggie' },
  { name: 'Mistral Vibe', command: 'vibe-acp', args: [], source: 'pip install mistral-vibe' },
];

/** The absolute path of `command` on `pathVar`, or undefined: a name only (a path is not looked up), no shell. */
export function findOnPath(command: string, pathVar = process.env['PATH'] ?? ''): string | undefined {
  return command && !command.includes('/') ? onPath(command, { PATH: pathVar }) : undefined;
}

export interface FoundAgent extends KnownAgent {
  /** Its path on PATH, or undefined when it is not installed. */
  found: string | undefined;
}

export function listKnownAgents(pathVar?: string): FoundAgent[] {
  return KNOWN_ACP_AGENTS.map((a) => ({ ...a, found: findOnPath(a.command, pathVar) }));
}
