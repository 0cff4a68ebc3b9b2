/** `ide-companion serve`'s options and exit codes, apart from its code: `--help` lists it without loading the companion. */
import type { CommandSpec } from '@ide-companion/command/commandSpec';
import { AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';

export const SERVE_IDE_INFO = { name: 'ide-companion', displayName: 'IDE Companion (terminal)' } as const;

export const serveSpec: CommandSpec = {
  name: 'serve',
  summary: 'run a companion for this folder; review diffs in this terminal',
  description: `Runs a companion for DIR (default: the current folder; repeat
--workspace for several roots). Start 'gemini' (or 'qwen', or 'claude --ide')
in that folder from any other terminal and it connects here: your uncommitted changes (git status), then
the files you save, become its context, and each edit it proposes is shown
here as a diff to accept, reject, or edit in $VISUAL/$EDITOR first (one key).`,
  options: {
    workspace: { type: 'string', arg: 'DIR', multiple: true, help: 'a workspace root (repeatable)' },
    agents: {
      type: 'string',
      arg: 'LIST',
      // From the one list (shared/agentPaths.ts): a new agent needs no line here.
      help: `the agents served, of ${AGENTS.join(',')} (${Object.entries(FACE_OF)
        .map(([borrower, face]) => `${borrower}: ${face}'s face`)
        .join(', ')}) (default: $IDE_COMPANION_AGENTS, else all the user has)`,
    },
    json: { type: 'boolean', help: 'log events as JSON lines on stdout (the review goes to stderr)' },
    'no-color': { type: 'boolean', help: 'plain output (also when NO_COLOR is set)' },
  },
  exits: { 0: 'stopped by SIGTERM or SIGHUP', 2: 'usage error', 3: 'could not start (workspace missing, port or discovery file refused)' },
};
