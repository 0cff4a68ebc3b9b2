/** saveDocument: has the editor write a file inside the workspace. */
import { SaveDocumentTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const saveDocument = defineTool({
  tool: SaveDocumentTool,
  requires: 'saveDocument',
  // `path` arrives resolved and checked (workspacePaths.ts): the editor saves what was checked.
  path: 'act',
  async handler({ path }, env) {
    try {
      return jsonResult(SaveDocumentTool, await askEditor(env, 'saveDocument', { path }));
    } catch (err) {
      return toolError(`Could not save ${path}: ${describeError(err)}`);
    }
  },
});
