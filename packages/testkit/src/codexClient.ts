/**
 * Codex CLI's side of its IDE socket, as 0.171.0's ipc.rs behaves: connect,
 * `initialize` as clientType "desktop", then `ide-context {workspaceRoot}`;
 * broadcasts are skipped, discovery requests answered `canHandle: false`,
 * everything within one deadline (the CLI's 6 s). Also a raw framed
 * connection for the tests that play a router or a hostile peer.
 */
import { randomUUID } from 'node:crypto';
import * as net from 'node:net';
import { CodexFrameDecoder, encodeCodexFrame, CODEX_METHOD } from '@ide-companion/protocol';

/** A framed connection: send JSON values, take the next one (in order), see it closed. */
export class CodexWire {
  private readonly decoder = new CodexFrameDecoder(() => 256 * 1024 * 1024);
  private readonly queue: any[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const value of this.decoder.push(chunk)) this.queue.push(value);
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('error', () => undefined);
  }

  static connect(socketPath: string): Promise<CodexWire> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      socket.once('connect', () => resolve(new CodexWire(socket)));
      socket.once('error', reject);
    });
  }

  static wrap(socket: net.Socket): CodexWire {
    return new CodexWire(socket);
  }

  send(value: unknown): void {
    this.socket.write(encodeCodexFrame(value));
  }

  /** Raw bytes (a hostile peer). */
  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next frame, or undefined when the connection closed first; throws after `timeoutMs`. */
  async next(timeoutMs = 5_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no Codex frame in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    return this.queue.shift();
  }

  /** Waits until the peer closes; false if it has not within `timeoutMs`. */
  async closedWithin(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * One `/ide` as the CLI makes it; resolves the ide-context response frame
 * (success or error). 0.171.0 asks at once as "codex-tui"; the older ipc.rs
 * (`initialize: true`) first initializes as clientType "desktop".
 */
export async function askCodexIdeContext(socketPath: string, workspaceRoot: string, timeoutMs = 6_000, options: { initialize?: boolean } = {}): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  const wire = await CodexWire.connect(socketPath);
  try {
    const awaitResponse = async (requestId: string): Promise<any> => {
      for (;;) {
        const frame = await wire.next(Math.max(1, deadline - Date.now()));
        if (frame === undefined) throw new Error('the router closed the connection');
        if (frame.type === 'response' && frame.requestId === requestId) return frame;
        if (frame.type === 'client-discovery-request')
          wire.send({ type: 'client-discovery-response', requestId: frame.requestId, response: { canHandle: false } });
      }
    };
    let clientId = 'codex-tui';
    if (options.initialize) {
      const initId = randomUUID();
      wire.send({
        type: 'request',
        requestId: initId,
        sourceClientId: 'initializing-client',
        version: 0,
        method: 'initialize',
        params: { clientType: 'desktop' },
      });
      const init = await awaitResponse(initId);
      if (init.resultType !== 'success') throw new Error(`initialize failed: ${JSON.stringify(init)}`);
      clientId = init.result.clientId;
    }
    const requestId = randomUUID();
    wire.send({ type: 'request', requestId, sourceClientId: clientId, version: 0, method: CODEX_METHOD.ideContext, params: { workspaceRoot } });
    return await awaitResponse(requestId);
  } finally {
    wire.close();
  }
}
