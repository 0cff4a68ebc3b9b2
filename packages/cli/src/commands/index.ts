/**
 * Every subcommand, in the order `--help` lists them: its spec, and where its
 * code is (a module and the export holding its Command, or an editor end's
 * EditorCommand), loaded only when it runs: `status` never loads `check`.
 * The release builds each into a file of its own from this table
 * (build/release.ts). `serve` and `bridge` are editor ends' commands.
 */
import type { CommandSpec } from '@ide-companion/command/commandSpec';
import type { EditorCommand } from '@ide-companion/command/editorEnd';
import { bridgeSpec } from '@ide-companion/jsonlines/bridgeSpec';
import { serveSpec } from '@ide-companion/terminal/serveSpec';
import { commandSpec } from '../commandTable.js';
import type { Command } from './types.js';
import { toCommand } from './toCommand.js';

export { toCommand };

export interface CommandEntry {
  name: string;
  spec: CommandSpec;
  /** Relative to this folder, or a package's subpath. */
  module: string;
  export: string;
}

const own = (name: string, module: string, exportName = `${name}Command`): CommandEntry => ({
  name,
  spec: commandSpec(name),
  module,
  export: exportName,
});

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'serve', spec: serveSpec, module: '@ide-companion/terminal/serveCommand', export: 'serveCommand' },
  own('status', './status.js'),
  own('context', './context.js'),
  own('diff', './diff.js'),
  own('check', './check.js'),
  own('doctor', './doctor.js'),
  own('list', './list.js'),
  own('install', './install.js'),
  own('uninstall', './install.js'),
  own('mcp', './mcp.js'),
  own('connect', './connect.js'),
  own('container', './container.js'),
  own('sandbox', './sandbox.js'),
  own('ssh', './ssh.js'),
  own('agent', './agent.js'),
  { name: 'bridge', spec: bridgeSpec, module: '@ide-companion/jsonlines/bridgeCommand', export: 'bridgeCommand' },
];

export async function loadCommand(entry: CommandEntry): Promise<Command> {
  const module = (await import(entry.module)) as Record<string, Command | EditorCommand>;
  const loaded = module[entry.export];
  if (!loaded) throw new Error(`${entry.module} has no ${entry.export}`);
  return toCommand(entry.name, loaded);
}
