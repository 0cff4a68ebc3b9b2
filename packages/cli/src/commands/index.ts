import { editorCommand } from '../editors.js';
import type { CommandEntry } from './types.js';

/**
 * Every subcommand, in the order `--help` lists them. Modules load lazily:
 * `serve` need not load `check`. `serve` and `bridge` are editor ends' commands.
 */
export const COMMANDS: CommandEntry[] = [
  { name: 'serve', editorEnd: 'terminal', load: () => editorCommand('terminal', 'serve') },
  { name: 'status', load: async () => (await import('./status.js')).statusCommand },
  { name: 'context', load: async () => (await import('./context.js')).contextCommand },
  { name: 'diff', load: async () => (await import('./diff.js')).diffCommand },
  { name: 'check', load: async () => (await import('./check.js')).checkCommand },
  { name: 'doctor', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'list', load: async () => (await import('./list.js')).listCommand },
  { name: 'install', load: async () => (await import('./install.js')).installCommand },
  { name: 'uninstall', load: async () => (await import('./install.js')).uninstallCommand },
  { name: 'mcp', load: async () => (await import('./mcp.js')).mcpCommand },
  { name: 'connect', load: async () => (await import('./connect.js')).connectCommand },
  { name: 'container', load: async () => (await import('./container.js')).containerCommand },
  { name: 'sandbox', load: async () => (await import('./sandbox.js')).sandboxCommand },
  { name: 'ssh', load: async () => (await import('./ssh.js')).sshCommand },
  { name: 'bridge', editorEnd: 'jsonlines', load: () => editorCommand('jsonlines', 'bridge') },
];
