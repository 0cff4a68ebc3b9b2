/**
 * Amp's side of its IDE protocol, for tests of the Amp face: what `amp
 * --ide` does with a lock file (`<data>/amp/ide/<PORT>.json`), written from
 * the shapes amp.nvim answers (the CLI ships as a compiled binary whose IDE
 * client cannot be loaded on its own): a WebSocket to
 * `ws://127.0.0.1:PORT/?auth=TOKEN`, envelopes `{clientRequest: {id,
 * <method>}}` answered by `{serverResponse: {id, ...}}`, and the editor's
 * `{serverNotification: {...}}` kept as they come.
 */
import { WebSocket } from 'ws';

export interface AmpLock {
  port: number;
  authToken: string;
  pid: number;
  workspaceFolders: string[];
  ideName: string;
}

export interface AmpClient {
  socket: WebSocket;
  /** Every `serverNotification` heard, oldest first, as `{name, params}`. */
  notifications: Array<{ name: string; params: any }>;
  /** Sends one request and waits for the answer with its id (the whole `serverResponse`). */
  request(method: string, params?: unknown): Promise<any>;
  /** Sends raw text and waits for the next `serverResponse` (for malformed envelopes). */
  raw(text: string): Promise<any>;
  close(): Promise<void>;
}

/** Connects as Amp does, from the lock file's port and token (`url` overrides the address, for refusal tests). */
export function connectAmpClient(lock: Pick<AmpLock, 'port' | 'authToken'>, options: { headers?: Record<string, string> } = {}): Promise<AmpClient> {
  const socket = new WebSocket(`ws://127.0.0.1:${lock.port}/?auth=${encodeURIComponent(lock.authToken)}`, { headers: options.headers });
  const notifications: AmpClient['notifications'] = [];
  const waiting = new Map<string | number, (answer: any) => void>();
  const anyAnswer: Array<(answer: any) => void> = [];
  let next = 0;
  socket.on('message', (data) => {
    const envelope = JSON.parse(String(data));
    if (envelope.serverNotification) {
      for (const [name, params] of Object.entries(envelope.serverNotification)) notifications.push({ name, params });
      return;
    }
    const answer = envelope.serverResponse;
    if (!answer) return;
    const settle = waiting.get(answer.id) ?? anyAnswer.shift();
    waiting.delete(answer.id);
    settle?.(answer);
  });
  const client: AmpClient = {
    socket,
    notifications,
    request(method, params = {}) {
      const id = `req-${++next}`;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        socket.send(JSON.stringify({ clientRequest: { id, [method]: params } }));
      });
    },
    raw(text) {
      return new Promise((resolve) => {
        anyAnswer.push(resolve);
        socket.send(text);
      });
    },
    close() {
      if (socket.readyState === socket.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        socket.once('close', () => resolve());
        socket.close();
      });
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}
