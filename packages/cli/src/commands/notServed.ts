/** Why a companion leaves each agent out, in words, as `list` and `doctor` say it. */
import type { AgentNotServed } from '@ide-companion/client/companions';
import { onPath } from '@ide-companion/command/pluginInstall';
import { AGENTS, FACE_OF, servedAgentNames, type AgentName } from '@ide-companion/shared/agentPaths';

/** Each face's commands, its own and its borrowers' (claude, opencode): the agent is installed here when one of them is on PATH. */
function agentCommands(agent: AgentName): string[] {
  return [agent, ...Object.entries(FACE_OF).flatMap(([borrower, face]) => (face === agent ? [borrower] : []))];
}

/** Why `agent` is not served, in words; `folder missing` says "not installed" when none of its commands is on PATH. */
function notServedWords(agent: AgentName, reason: AgentNotServed, env: NodeJS.ProcessEnv): string {
  switch (reason.why) {
    case 'not chosen':
      return "not chosen (the editor's agents option or IDE_COMPANION_AGENTS leaves it out)";
    case 'folder missing': {
      const folder = reason.folder ?? 'its folder';
      if (!agentCommands(agent).some((c) => onPath(c, env) !== undefined))
        return `not installed (no ${agentCommands(agent).join(' or ')} on PATH, no ${folder})`;
      return `not served yet: no ${folder}; served within seconds of its first run, which makes it`;
    }
    case 'refused':
      return `refused${reason.detail ? `: ${reason.detail}` : ''} (see the editor's log)`;
  }
}

/** One line per agent a companion does not serve (as its discovery file says), in AGENTS' order: "Qwen Code: not chosen (…)". */
export function notServedLines(notServed: Partial<Record<AgentName, AgentNotServed>>, env: NodeJS.ProcessEnv = process.env): string[] {
  return AGENTS.flatMap((agent) => {
    const reason = notServed[agent];
    return reason ? [`${servedAgentNames([agent]).join(', ')}: ${notServedWords(agent, reason, env)}`] : [];
  });
}
