/** checkDocumentDirty: whether the editor holds unsaved changes for a file. */
import { CheckDocumentDirtyTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const checkDocumentDirty = defineTool({
  tool: CheckDocumentDirtyTool,
  requires: 'checkDocumentDirty',
  path: 'read',
  async handler({ path }, env) {
    try {
      return jsonResult(CheckDocumentDirtyTool, await askEditor(env, 'checkDocumentDirty', { path }));
    } catch (err) {
      return toolError(`Could not check ${path}: ${describeError(err)}`);
    }
  },
});
