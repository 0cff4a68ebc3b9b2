/** A loaded command export as a Command (a module of its own: a command's release file takes it without the table of every command). */
import { usageOf } from '@ide-companion/command/commandSpec';
import type { EditorCommand } from '@ide-companion/command/editorEnd';
import type { Command } from './types.js';

/** A loaded export as a Command: this package's own as they are, an editor end's with its usage from its spec. */
export function toCommand(name: string, loaded: Command | EditorCommand): Command {
  if ('usage' in loaded) return loaded;
  return { name, usage: usageOf(loaded.spec), run: loaded.run };
}
