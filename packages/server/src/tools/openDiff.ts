/** openDiff: shows the proposal and answers `content: []` at once; the outcome follows as a notification. */
import { OpenDiffTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { logRefusal } from '../http/checkProbe.js';
import { defineTool, toolError } from './toolDefinition.js';

export const openDiff = defineTool({
  tool: OpenDiffTool,
  requires: 'diffs',
  async handler({ filePath, newContent }, env, call) {
    try {
      await env.diffs.open(call.sessionId, filePath, newContent, env.agentOf?.(call.sessionId));
      return { content: [] };
    } catch (err) {
      // `check`'s session asks for this refusal on purpose (http/checkProbe.ts).
      logRefusal(env.logger, env.isCheckProbe?.(call.sessionId) ?? false, 'openDiff refused', { filePath, error: describeError(err) });
      return toolError(describeError(err));
    }
  },
});
