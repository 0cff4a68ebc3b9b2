/**
 * Which agents a companion is asked to serve: the ones the end names, else
 * the user's IDE_COMPANION_AGENTS, else every agent (each then served to a
 * user who has it, agentRoster.ts). The core agent is always among them: its
 * face is the companion's own (its port, token and discovery file), every
 * other agent's a line of faces/registry.ts.
 */
import { AGENTS, AGENTS_ENV, parseAgents, type AgentName } from '@ide-companion/shared/agentPaths';
import { describeError, type Logger } from './logger.js';

/** The agent whose wire is the companion's own: MCP over HTTP, found by the discovery file. */
export const CORE_AGENT = 'gemini' satisfies AgentName;

/** The user's choice for every end at once: IDE_COMPANION_AGENTS (docs/agents.md); unset or unreadable: none named (the default). */
export function agentsFromEnv(logger: Logger): readonly AgentName[] | undefined {
  const text = process.env[AGENTS_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseAgents(text);
  } catch (err) {
    logger.warn(`${AGENTS_ENV} ignored: the agents you have are served`, { error: describeError(err) });
    return undefined;
  }
}

/** The agents wanted, in AGENTS' order: those chosen (every one when none was) and the core agent. */
export function wantedAgents(chosen: readonly AgentName[] | undefined): AgentName[] {
  return AGENTS.filter((a) => a === CORE_AGENT || (chosen ?? AGENTS).includes(a));
}
