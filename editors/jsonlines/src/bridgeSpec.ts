/** `ide-companion bridge`'s options and exit codes, apart from its code: `--help` lists it without loading the companion. */
import type { CommandSpec } from '@ide-companion/command/commandSpec';

export const bridgeSpec: CommandSpec = {
  name: 'bridge',
  summary: 'companion host for script-based editor plugins (JSON lines on stdio)',
  description: `Runs a companion whose editor end is a script speaking line-delimited JSON on
this process's stdin/stdout (docs/editor-protocol.md). The script's first line
is {"type":"hello",...}; its fields override these options. Logs go to stderr.
Ends when stdin closes.`,
  options: {
    name: { type: 'string', arg: 'NAME', help: 'ideInfo.name, short and lowercase (e.g. vim)' },
    'display-name': { type: 'string', arg: 'NAME', help: 'what /ide status shows (e.g. Vim)' },
    'ide-pid': { type: 'string', arg: 'PID', help: "the editor's PID (default: this command's parent)" },
    workspace: { type: 'string', arg: 'DIR', multiple: true, help: 'a workspace root (repeatable; default: the current folder)' },
  },
  exits: { 0: 'stdin closed, companion stopped', 1: 'the companion could not start', 2: 'usage error' },
};
