/** saveDocument: has the editor write a file inside the workspace. */
import { SaveDocumentTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const saveDocument = defineTool({
  tool: SaveDocumentTool,
  requires: 'saveDocument',
  // `path` arrives resolved and checked (workspacePaths.ts) in this same turn, right before the editor writes: the editor saves what was checked.
  path: 'act',
  async handler({ path }, env, call) {
    let answer;
    try {
      answer = await askEditor(env, 'saveDocument', { path });
    } catch (err) {
      return toolError(`Could not save ${path}: ${describeError(err)}`);
    }
    // Re-checked after the write: the agent hears if the name led elsewhere meanwhile, never "saved".
    const swapped = call.checked?.recheck(true);
    if (swapped) {
      env.logger.warn('saveDocument: the path was swapped while the editor saved it', { path });
      return toolError(`saveDocument refused ${path}: ${swapped.message}.`);
    }
    return jsonResult(SaveDocumentTool, answer);
  },
});
