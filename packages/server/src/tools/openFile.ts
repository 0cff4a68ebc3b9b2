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
  async handler({ path, line, column, endLine, endColumn, preview, focus }, env) {
    try {
      await askEditor(env, 'openFile', { path, line, column, endLine, endColumn, preview, focus });
      return jsonResult(OpenFileTool, { opened: path, line, column, endLine, endColumn });
    } catch (err) {
      return toolError(`Could not open ${path}: ${describeError(err)}`);
    }
  },
});
