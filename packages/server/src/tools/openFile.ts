/** openFile: shows a file inside the workspace at a line and column in the editor. */
import { OpenFileTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';
import { fileInsideRoots } from './workspacePaths.js';

export const openFile = defineTool({
  tool: OpenFileTool,
  requires: 'openFile',
  async handler({ path, line, column }, env) {
    const inside = fileInsideRoots(path, env.context.getRoots());
    if (inside instanceof Error) return toolError(`Cannot open ${path}: ${inside.message}.`);
    try {
      await askEditor(env, 'openFile', { path, line, column });
      return jsonResult(OpenFileTool, { opened: path, line, column });
    } catch (err) {
      return toolError(`Could not open ${path}: ${describeError(err)}`);
    }
  },
});
