/** getOpenEditors: the files open in the editor, as the editor lists them. */
import { GetOpenEditorsTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const getOpenEditors = defineTool({
  tool: GetOpenEditorsTool,
  requires: 'getOpenEditors',
  async handler(_args, env) {
    try {
      return jsonResult(GetOpenEditorsTool, await askEditor(env, 'getOpenEditors', {}));
    } catch (err) {
      return toolError(`Could not list the open editors: ${describeError(err)}`);
    }
  },
});
