/** openDiff: shows the proposal and answers `content: []` at once; the outcome follows as a notification. */
import { OpenDiffTool, REMOTE_BASE_META_KEY, RemoteBaseSchema, type RemoteBase } from '@ide-companion/protocol';
import { DiffError } from '../diffCoordinator.js';
import { describeError } from '../logger.js';
import { logRefusal } from '../http/checkProbe.js';
import { defineTool, toolError, type ToolCall, type ToolEnvironment } from './toolDefinition.js';

/**
 * The file as the CLI's machine has it, when the relay there sent it (`connect --remote-files`, an SSH remote):
 * taken only from a session opened on the companion's sockets (the relay's way in; the relay replaces whatever the
 * CLI put under the key), never from one on the port, where a CLI could show the user a base the file does not have.
 */
function remoteBaseOf(env: ToolEnvironment, call: ToolCall): RemoteBase | undefined {
  const given = call.meta?.[REMOTE_BASE_META_KEY];
  if (given === undefined) return undefined;
  if (!(env.openedOnSocket?.(call.sessionId) ?? false)) {
    throw new DiffError(`_meta "${REMOTE_BASE_META_KEY}" is sent only by ide-companion connect, on the companion's socket; refused on this connection`);
  }
  const parsed = RemoteBaseSchema.safeParse(given);
  if (!parsed.success) throw new DiffError(`_meta "${REMOTE_BASE_META_KEY}" is not a file's base: ${parsed.error.issues[0]?.message ?? 'bad shape'}`);
  return parsed.data;
}

export const openDiff = defineTool({
  tool: OpenDiffTool,
  requires: 'diffs',
  async handler({ filePath, newContent }, env, call) {
    try {
      await env.diffs.open(call.sessionId, filePath, newContent, env.agentOf?.(call.sessionId), { remote: remoteBaseOf(env, call) });
      return { content: [] };
    } catch (err) {
      // `check`'s session asks for this refusal on purpose (http/checkProbe.ts).
      logRefusal(env.logger, env.isCheckProbe?.(call.sessionId) ?? false, 'openDiff refused', { filePath, error: describeError(err) });
      return toolError(describeError(err));
    }
  },
});
