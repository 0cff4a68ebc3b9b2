/** openFile: shows a file inside the workspace at a line and column in the editor. */
import { OpenFileTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const openFile = defineTool({
  tool: OpenFileTool,
  requires: 'openFile',
  // `path` arrives resolved and checked (workspacePaths.ts): the editor opens what was checked.
  path: 'act',
  async handler({ path, line, column, endLine, endColumn, preview, focus }, env, call) {
    try {
      await askEditor(env, 'openFile', { path, line, column, endLine, endColumn, preview, focus });
    } catch (err) {
      return toolError(`Could not open ${path}: ${describeError(err)}`);
    }
    // Re-checked once the editor has opened it: a link swapped meanwhile showed the user another file, which is taken back.
    const swapped = call.checked?.recheck();
    if (swapped) {
      env.logger.warn('openFile: the path was swapped while the editor opened it; closing it', { path });
      try {
        await askEditor(env, 'closeFile', { path });
      } catch (err) {
        env.logger.warn('openFile: could not close the swapped file', { path, error: describeError(err) });
      }
      return toolError(`openFile refused ${path}: ${swapped.message}; the editor was asked to close it.`);
    }
    return jsonResult(OpenFileTool, { opened: path, line, column, endLine, endColumn });
  },
});
