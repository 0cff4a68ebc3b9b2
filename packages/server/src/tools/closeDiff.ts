/**
 * closeDiff: closes the view, never notifies, and answers JSON
 * `{"content": "..."}` with the proposal as edited: the form the real CLI
 * parses (raw text would silently drop the user's edits).
 */
import { CloseDiffTool, encodeCloseDiffText } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { defineTool, textResult, toolError } from './toolDefinition.js';

export const closeDiff = defineTool({
  tool: CloseDiffTool,
  requires: 'diffs',
  async handler({ filePath }, env, call) {
    try {
      const content = await env.diffs.close(call.sessionId, filePath);
      if (content === undefined) return toolError(`No diff is open for ${filePath} in this session.`);
      return textResult(encodeCloseDiffText(content));
    } catch (err) {
      return toolError(`Could not close the diff for ${filePath}: ${describeError(err)}`);
    }
  },
});
