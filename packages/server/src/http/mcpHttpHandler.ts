/**
 * The node:http request handler: guard (Host, Origin, token), route to `/mcp`,
 * bound and parse the body, then hand over to the session's transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import { loadSdk } from '../lazySdk.js';
import { describeError, type Logger } from '../logger.js';
import type { SessionRegistry } from '../sessions.js';
import { readJsonBody } from './body.js';
import { RpcErrorCode, sendJsonRpcError } from './jsonRpcError.js';
import { EMPTY_BATCH } from './rpcConformance.js';
import { checkProbeTest, logRefusal } from './checkProbe.js';
import { requestGuard, type HostRule, type Refusal } from './requestGuard.js';
import { AGENT_DISPLAY_NAMES, type AgentName } from '@ide-companion/shared/agentPaths';

export interface McpHttpHandlerOptions {
  /** The Host headers this listener accepts (the port's or the socket's). */
  hosts: HostRule;
  /** The tokens accepted, each naming the agent it was given to. */
  tokens: ReadonlyArray<readonly [token: string, agent: AgentName]>;
  /** In the token guard's place, for a listener whose agent sends no token (admissionGuard): who the request is, or why not. */
  guard?: (req: IncomingMessage) => Refusal | AgentName;
  maxBodyBytes: number;
  /** A Unix socket's listener (the relay's way in): its sessions may send an openDiff's remote base (tools/openDiff.ts). */
  onSocket?: boolean;
  sessions: SessionRegistry;
  logger: Logger;
}

const MIB = 1024 * 1024;

export function createMcpHttpHandler(options: McpHttpHandlerOptions) {
  const { sessions, logger } = options;
  const guard = options.guard ?? requestGuard(options.hosts, options.tokens);
  const isCheckProbe = checkProbeTest(options.tokens.map(([token]) => token));

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const agent = guard(req);
    if (typeof agent === 'object') {
      const refusal = agent;
      // `check`'s deliberate probes, proven by a token holder, are no attack: logged below the warnings.
      logRefusal(logger, isCheckProbe(req), 'request refused', { method: req.method, status: refusal.status, reason: refusal.message });
      sendJsonRpcError(res, refusal.status, RpcErrorCode.ServerError, refusal.message, { Connection: 'close', ...refusal.headers });
      return;
    }
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== MCP_ENDPOINT_PATH) {
      sendJsonRpcError(res, 404, RpcErrorCode.InvalidRequest, `Not found: the MCP endpoint is ${MCP_ENDPOINT_PATH}`);
      return;
    }
    const method = req.method ?? '';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      sendJsonRpcError(res, 405, RpcErrorCode.InvalidRequest, `Method not allowed: ${method}`, { Allow: 'GET, POST, DELETE' });
      return;
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;

    let body: unknown;
    if (method === 'POST') {
      const read = await readJsonBody(req, options.maxBodyBytes);
      if (!read.ok) {
        if (read.tooLarge) {
          const limit = `${Math.round(options.maxBodyBytes / MIB)} MiB`;
          logger.warn('request body over the limit', { limit });
          sendJsonRpcError(res, 413, RpcErrorCode.RequestTooLarge, `Request body too large: this companion accepts up to ${limit}`);
        } else if (read.parseError) {
          sendJsonRpcError(res, 400, RpcErrorCode.ParseError, `Parse error: ${describeError(read.error)}`);
        } else {
          sendJsonRpcError(res, 400, RpcErrorCode.InvalidRequest, `Could not read the request body: ${read.error.message}`);
        }
        return;
      }
      body = read.body;
    }

    if (sessionId === undefined) {
      if (method === 'POST' && (await loadSdk()).isInitializeRequest(body)) {
        if (sessions.full) {
          logger.warn('session refused: too many sessions', { max: sessions.maxSessions });
          sendJsonRpcError(
            res,
            503,
            RpcErrorCode.TooManySessions,
            `Too many sessions: this companion serves at most ${sessions.maxSessions} at once; close another Gemini CLI session and retry`,
            { 'Retry-After': '2' },
          );
          return;
        }
        await sessions.initialize(req, res, body, agent, isCheckProbe(req), options.onSocket ?? false);
        return;
      }
      sendJsonRpcError(res, 400, RpcErrorCode.InvalidRequest, await sessionlessRefusal(body));
      return;
    }
    const owner = sessions.agentOf(sessionId);
    if (owner === undefined) {
      sendJsonRpcError(res, 404, RpcErrorCode.ServerError, 'Session not found');
      return;
    }
    // A session answers only the token (the face) that opened it: another agent's token must not drive it.
    if (owner !== agent) {
      logger.warn('request refused: another face’s token on this session', { method: req.method, session: sessionId, owner, agent });
      sendJsonRpcError(
        res,
        403,
        RpcErrorCode.ServerError,
        `Forbidden: this session was opened with ${AGENT_DISPLAY_NAMES[owner]}'s token; a request on it must carry the same token`,
      );
      return;
    }
    await sessions.handle(sessionId, req, res, body);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    route(req, res).catch((err: unknown) => {
      // Nothing a client sends may take the companion down.
      logger.error('request failed', { method: req.method, error: describeError(err) });
      sendJsonRpcError(res, 500, -32603, 'Internal error');
    });
  };
}

/** Why a POST without a session is refused: an empty batch and a batched initialize are named (JSON-RPC 2.0, MCP), the rest needs a session. */
async function sessionlessRefusal(body: unknown): Promise<string> {
  if (Array.isArray(body) && body.length === 0) return EMPTY_BATCH.message;
  if (Array.isArray(body) && body.some((await loadSdk()).isInitializeRequest)) return 'Invalid Request: initialize must not be part of a JSON-RPC batch';
  return 'Bad Request: no Mcp-Session-Id header; initialize a session first';
}
