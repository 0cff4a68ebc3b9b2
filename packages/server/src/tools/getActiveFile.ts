/** getActiveFile (architecture doc): one line of text naming the active file and cursor. */
import { GetActiveFileTool, formatActiveFile } from '@ide-companion/protocol';
import { defineTool, textResult } from './toolDefinition.js';

export const getActiveFile = defineTool({
  tool: GetActiveFileTool,
  async handler(_args, env) {
    return textResult(formatActiveFile(env.context.activeFile()));
  },
});
