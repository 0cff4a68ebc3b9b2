/**
 * `ide-companion serve` alone: the entry of the committed one-file bundle
 * bin/ide-companion-serve.mjs, which the bin runs for `serve`. One bundle
 * starts faster and idles smaller than the workspaces' many modules (see
 * docs/benchmarks.md); every other command still loads the compiled workspaces.
 */
import { usageOf } from '@ide-companion/command/commandSpec';
import { terminalEnd } from '@ide-companion/terminal';
import { runCommand } from './runCommand.js';

export async function serve(argv: string[]): Promise<number> {
  const command = terminalEnd.commands?.find((c) => c.spec.name === 'serve');
  if (!command) throw new Error('the terminal end has no serve command');
  return runCommand('serve', { name: 'serve', usage: usageOf(command.spec), run: command.run }, argv);
}
