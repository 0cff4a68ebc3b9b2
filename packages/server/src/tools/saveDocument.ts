/** saveDocument: has the editor write a file inside the workspace. */
import { SaveDocumentTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';
import { fileInsideRoots } from './workspacePaths.js';

export const saveDocument = defineTool({
  tool: SaveDocumentTool,
  requires: 'saveDocument',
  async handler({ path }, env) {
    const inside = fileInsideRoots(path, env.context.getRoots());
    if (inside instanceof Error) return toolError(`Cannot save ${path}: ${inside.message}.`);
    try {
      return jsonResult(SaveDocumentTool, await askEditor(env, 'saveDocument', { path }));
    } catch (err) {
      return toolError(`Could not save ${path}: ${describeError(err)}`);
    }
  },
});
