import { editorCommand } from '../editors.js';
import type { CommandEntry } from './types.js';

/** Every subcommand, in the order `--help` lists them. Modules load lazily: `serve` need not load `check`. */
export const COMMANDS: CommandEntry[] = [
  { name: 'serve', summary: 'run a companion for this folder; review diffs in this terminal', load: () => editorCommand('terminal', 'serve') },
  { name: 'status', summary: 'show what /ide status would show here, and which companion was chosen', load: async () => (await import('./status.js')).statusCommand },
  { name: 'context', summary: 'print the IDE context the CLI would send the model (--watch for live)', load: async () => (await import('./context.js')).contextCommand },
  { name: 'diff', summary: 'open a diff in the connected IDE; exit 0 on accept, 1 on reject', load: async () => (await import('./diff.js')).diffCommand },
  { name: 'check', summary: 'check a running companion against the spec and the real CLI', load: async () => (await import('./check.js')).checkCommand },
  { name: 'doctor', summary: 'explain whether gemini started here would connect, and why not', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'list', summary: 'list every companion on this machine (IDE, PID, port, workspace, liveness)', load: async () => (await import('./list.js')).listCommand },
  { name: 'install', summary: 'install the companion for an editor (lists installers without EDITOR)', load: async () => (await import('./install.js')).installCommand },
  { name: 'mcp', summary: "the connected editor's diagnostics, open files and navigation as MCP tools (stdio)", load: async () => (await import('./mcp.js')).mcpCommand },
  { name: 'bridge', summary: 'companion host for script-based editor plugins (JSON lines on stdio)', load: () => editorCommand('jsonlines', 'bridge') },
];
