/**
 * The MCP lifecycle on a connection that is not born initialized (Claude
 * Code's WebSocket; an HTTP session only exists once its initialize was
 * accepted): nothing but `initialize` and `ping` until initialize has been
 * answered, and `initialize` once. Notifications and responses out of turn
 * are dropped (JSON-RPC answers no notification), so `notifications/initialized`
 * before initialize cannot open the session either.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RpcErrorCode } from '../http/jsonRpcError.js';
import { shownName, type RequestId, type RpcFault } from '../http/rpcConformance.js';

export type Admission = 'pass' | 'drop' | RpcFault;

export class McpLifecycle {
  private state: 'new' | 'initializing' | 'ready' = 'new';
  private initializeId: RequestId | undefined;

  /** Whether initialize has been answered with a result. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  /** What to do with a message from the client: hand it on, drop it, or answer this error. */
  admit(message: JSONRPCMessage): Admission {
    if (!('method' in message) || !('id' in message)) return this.ready ? 'pass' : 'drop';
    if (message.method === 'initialize') {
      if (this.state !== 'new')
        return { code: RpcErrorCode.InvalidRequest, message: 'Invalid Request: initialize was already sent on this connection (once per session)' };
      this.state = 'initializing';
      this.initializeId = message.id;
      return 'pass';
    }
    if (this.ready || message.method === 'ping') return 'pass';
    return {
      code: RpcErrorCode.InvalidRequest,
      message: `Invalid Request: ${shownName(message.method)} before initialize was answered; send initialize first`,
    };
  }

  /** A reply of ours is going out: initialize's result opens the session, its error lets the client try again. */
  replied(message: JSONRPCMessage): void {
    if (this.state !== 'initializing' || !('id' in message) || message.id !== this.initializeId) return;
    this.state = 'result' in message ? 'ready' : 'new';
  }
}
