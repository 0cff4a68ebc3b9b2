/**
 * What Codex CLI's `/ide` would get here (issue 31), asked as 0.171.0 asks:
 * the checks it makes on its IPC socket's folder and file, then one
 * `ide-context {workspaceRoot}` over the socket (as "codex-tui", no
 * initialize), within a deadline. For `doctor`, `list` and `check`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODEX_ERROR, CODEX_METHOD, CodexFrameDecoder, encodeCodexFrame, CODEX_MAX_RESPONSE_FRAME_BYTES } from '@ide-companion/protocol/codexFrames';
import { codexSocketPath } from '@ide-companion/shared/agentPaths';
import { checkSocketToDial } from '@ide-companion/shared/privateSocket';

/** What the probe reads of a frame; anything else in it is left alone. */
interface Frame {
  type?: string;
  requestId?: string;
  resultType?: string;
  error?: unknown;
  result?: { ideContext?: { activeFile?: { fsPath?: string } } };
}

export interface CodexProbe {
  socketPath: string;
  /** absent: no socket; refused: the CLI would refuse it; silent: nobody answered; answered: success or an error string. */
  state: 'absent' | 'refused' | 'silent' | 'answered';
  detail: string;
  /** resultType of the answer. */
  ok?: boolean;
  /** The answer's active file (fsPath), when it had one. */
  activeFile?: string;
}

/**
 * The CLI's checks on the socket (ipc.rs), and the companion's besides (shared/privateSocket.ts: Codex's home
 * private, no folder on the way another user could swap): undefined when it would connect and a companion serve it.
 */
export function codexSocketProblem(socketPath: string): string | undefined {
  const check = checkSocketToDial(socketPath, { privateParent: true });
  return check.ok || check.absent ? undefined : check.reason;
}

export async function probeCodex(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 3_000): Promise<CodexProbe> {
  const socketPath = codexSocketPath(env);
  const absent: CodexProbe = { socketPath, state: 'absent', detail: `no socket at ${socketPath}: no editor serves Codex CLI` };
  // No Codex home: nothing of Codex's here to judge (a user without Codex hears nothing of it).
  if (!fs.existsSync(path.dirname(path.dirname(socketPath)))) return absent;
  // Refused before absent: a companion refuses such a folder too (and binds nothing there), saying why.
  let problem: string | undefined;
  try {
    problem = codexSocketProblem(socketPath);
  } catch (err) {
    problem = (err as Error).message;
  }
  if (problem) return { socketPath, state: 'refused', detail: `${problem}: Codex CLI's socket is not served there` };
  if (!fs.existsSync(socketPath)) return absent;
  // Loaded only with a socket to ask: doctor and list start without them (bench/command-start.mjs).
  const [net, { randomUUID }] = await Promise.all([import('node:net'), import('node:crypto')]);
  return new Promise<CodexProbe>((resolve) => {
    const socket = net.connect(socketPath);
    const decoder = new CodexFrameDecoder(() => CODEX_MAX_RESPONSE_FRAME_BYTES);
    const requestId = randomUUID();
    const done = (probe: Omit<CodexProbe, 'socketPath'>) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ socketPath, ...probe });
    };
    const timer = setTimeout(() => done({ state: 'silent', detail: `nothing answered on ${socketPath} within ${timeoutMs} ms` }), timeoutMs);
    socket.once('error', (err) => done({ state: 'silent', detail: `${socketPath}: ${err.message}` }));
    socket.once('close', () => done({ state: 'silent', detail: `${socketPath} closed the connection` }));
    socket.once('connect', () =>
      socket.write(
        encodeCodexFrame({ type: 'request', requestId, sourceClientId: 'codex-tui', version: 0, method: CODEX_METHOD.ideContext, params: { workspaceRoot } }),
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = decoder.push(chunk) as Frame[];
      } catch (err) {
        return done({ state: 'silent', detail: `${socketPath} sent what is not a frame: ${(err as Error).message}` });
      }
      for (const frame of frames) {
        if (frame?.type === 'client-discovery-request') {
          socket.write(encodeCodexFrame({ type: 'client-discovery-response', requestId: frame.requestId, response: { canHandle: false } }));
        } else if (frame?.type === 'response' && frame.requestId === requestId) {
          if (frame.resultType === 'success') {
            const activeFile = frame.result?.ideContext?.activeFile?.fsPath;
            return done({
              state: 'answered',
              ok: true,
              detail: `answered for ${workspaceRoot}${activeFile ? ` (active file ${activeFile})` : ' (no active file)'}`,
              ...(activeFile && { activeFile }),
            });
          }
          // The router's error codes in words: what Codex CLI's /ide gets here.
          const detail =
            frame.error === CODEX_ERROR.noClientFound
              ? `no editor serves ${workspaceRoot}: Codex CLI's /ide gets no context here`
              : `the editors answered an error for ${workspaceRoot} (${String(frame.error)})`;
          return done({ state: 'answered', ok: false, detail });
        }
      }
    });
  });
}
