/** openDiff: shows the proposal and answers `content: []` at once; the outcome follows as a notification. */
import { OpenDiffTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { defineTool, logRefusal, toolError } from './toolDefinition.js';

export const openDiff = defineTool({
  tool: OpenDiffTool,
  requires: 'diffs',
  async handler({ filePath, newContent }, env, call) {
    try {
      await env.diffs.open(call.sessionId, filePath, newContent, env.agentOf?.(call.sessionId));
      return { content: [] };
    } catch (err) {
      logRefusal(env, call, 'openDiff refused', { filePath, error: describeError(err) });
      return toolError(describeError(err));
    }
  },
});
