/**
 * Amp's registry line: a lock file (`<PORT>.json`) naming a WebSocket on the
 * companion's port, `?auth=` its token (amp.ts), answering Amp's requests
 * (ampRequests.ts). Its setting: how editFile reaches the file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AMP_EDIT_ENV, AMP_EDIT_MODES, AMP_ENV, type AmpEditMode } from '@ide-companion/protocol';
import { ampIdeDir, ampLockFileName, AGENT_CONNECT_HINTS } from '@ide-companion/shared/agentPaths';
import { generateAuthToken } from '../auth.js';
import type { Logger } from '../logger.js';
import type { FaceDefinition } from './agentFace.js';
import { AmpFace } from './amp.js';
import { ampLockFile, sweepStaleAmpLockFiles } from './amp/ampLockFile.js';
import { answerAmpRequest } from './ampRequests.js';
import { TokenRotation } from './amp/tokenRotation.js';

export interface AmpFaceSettings {
  /** How Amp's editFile reaches the file: `review` (default) or `buffer` (docs/agents.md); unset: IDE_COMPANION_AMP_EDIT, else review. */
  editFile?: AmpEditMode | undefined;
  /** How often its token rotates (ms); amp.nvim's 4 h unless given (tests). */
  tokenRotationMs?: number | undefined;
}

export const ampFace: FaceDefinition<AmpFaceSettings> = {
  agent: 'amp',
  connectHint: AGENT_CONNECT_HINTS.amp,
  create(host, given) {
    // Rotated as amp.nvim rotates its own (amp/tokenRotation.ts): the lock file holds `rotation.token`.
    const rotation: TokenRotation = new TokenRotation({
      token: generateAuthToken(),
      generate: generateAuthToken,
      accept: (token) => sessions.acceptToken(token),
      intervalMs: given.settings?.tokenRotationMs,
      logger: host.logger,
    });
    // Read when served, not when made: the variables are the ones at start.
    const dir = () => given.path ?? ampIdeDir();
    const editMode = given.settings?.editFile ?? ampEditFromEnv(host.logger);
    const sessions = new AmpFace({
      token: rotation.token,
      hosts: host.portHosts,
      maxPayload: host.limits.maxBodyBytes,
      keepAliveMs: host.limits.keepAliveMs,
      logger: host.logger,
      answer: (session, id, method, params) =>
        answerAmpRequest(
          { env: host.toolEnvironment(), offered: host.tools, maxFileBytes: host.limits.maxBodyBytes, editMode, ideName: host.ideInfo.displayName },
          session,
          id,
          method,
          params,
        ),
      onSessionClosed: (id) => host.sessionClosed(id),
      onSessionsChanged: () => host.sessionsChanged(),
      currentContext: () => ({ context: host.context.snapshot(), selectionBackward: host.context.selectionBackward }),
    });
    return {
      agent: 'amp',
      // Amp's variables: its data folder's, or the CLI's access token (a user of Amp, whose CLI makes that folder too).
      get discovery() {
        return { home: path.dirname(dir()), namedByEnv: given.path !== undefined || Boolean(process.env[AMP_ENV.DATA_HOME] || process.env[AMP_ENV.API_KEY]) };
      },
      sessions,
      stop: async () => rotation.stop(),
      lock: {
        get dir() {
          return dir();
        },
        fileName: ampLockFileName,
        sweep: sweepStaleAmpLockFiles,
        rewriter: (rewrite) => rotation.start(rewrite),
        contents: () =>
          ampLockFile({ port: host.port(), token: rotation.token, idePid: host.idePid, roots: host.context.getRoots(), ideName: host.ideInfo.displayName }),
        // Amp's folder is in the user's data home (~/.local/share), itself made when missing for a user who named Amp.
        prepare: () => {
          try {
            fs.mkdirSync(path.dirname(path.dirname(dir())), { recursive: true, mode: 0o700 });
          } catch {
            // Refused: the lock file's write says why, and Amp alone is not served.
          }
        },
      },
    };
  },
};

/** Amp's editFile mode from IDE_COMPANION_AMP_EDIT (`review` or `buffer`); unset or unknown: review (said in the log). */
function ampEditFromEnv(logger: Logger): AmpEditMode {
  const text = process.env[AMP_EDIT_ENV]?.trim().toLowerCase();
  if (!text) return 'review';
  if ((AMP_EDIT_MODES as readonly string[]).includes(text)) return text as AmpEditMode;
  logger.warn(`${AMP_EDIT_ENV} ignored: choose ${AMP_EDIT_MODES.join(' or ')}; Amp's edits are reviewed`);
  return 'review';
}
