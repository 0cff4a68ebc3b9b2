/** getSelection: the user's current selection, as the editor reports it. */
import { GetSelectionTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const getSelection = defineTool({
  tool: GetSelectionTool,
  requires: 'getSelection',
  async handler(_args, env) {
    try {
      return jsonResult(GetSelectionTool, await askEditor(env, 'getSelection', {}));
    } catch (err) {
      return toolError(`Could not read the selection: ${describeError(err)}`);
    }
  },
});
