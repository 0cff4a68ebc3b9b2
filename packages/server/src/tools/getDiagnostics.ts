/** getDiagnostics: the editor lists, the companion filters by severity and bounds the answer for a model. */
import { GetDiagnosticsTool, boundDiagnostics } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { askEditor } from './askEditor.js';
import { defineTool, jsonResult, toolError } from './toolDefinition.js';

export const getDiagnostics = defineTool({
  tool: GetDiagnosticsTool,
  requires: 'getDiagnostics',
  path: 'read',
  async handler({ path, severity }, env) {
    try {
      const { diagnostics } = await askEditor(env, 'getDiagnostics', path === undefined ? {} : { path });
      return jsonResult(GetDiagnosticsTool, boundDiagnostics(diagnostics, severity));
    } catch (err) {
      return toolError(`Could not read the diagnostics: ${describeError(err)}`);
    }
  },
});
