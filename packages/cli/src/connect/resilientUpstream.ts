/**
 * The relay's way to the companion when it dials the stable address (a
 * workspace socket, `connect --reconnect`; docs/remote.md): the same
 * Streamable HTTP transport, made again whenever the companion behind the
 * socket goes away. The CLI's MCP session is kept: its initialize is replayed
 * to the next companion (the answer kept here, the CLI has one already), then
 * its `notifications/initialized`, which opens the new session's GET stream
 * (the companion sends its context there at once). While no companion is
 * there, a request gets an error saying so and a notification is dropped.
 */
import { HttpClientTransport, type HttpClientTransportOptions } from '@ide-companion/client/httpTransport';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { REFUSED_DIAL } from '@ide-companion/shared/privateSocket';

/** How often the socket is tried while no companion answers there: a companion that (re)starts is reached within this and a handshake. */
export const RECONNECT_INTERVAL_MS = 250;
/** A handshake that does not finish in this time is dropped and tried again. */
const HANDSHAKE_TIMEOUT_MS = 5_000;
/** The check before a dial refused it (shared/privateSocket.ts): nothing was dialled. */
const REFUSED = new RegExp(`${REFUSED_DIAL} [^\n]*`);
/** Nobody answers there, or the socket is refused: the companion is gone (the relay ends on it, unless it reconnects). */
export const UNREACHABLE = new RegExp(`ECONNREFUSED|ENOENT|ECONNRESET|EPIPE|socket hang up|Maximum reconnection attempts|${REFUSED_DIAL}`);
/** Nobody answers at the socket, or the companion there does not know our session (a newer one took the socket). */
const GONE = new RegExp(`${UNREACHABLE.source}|Not Found|\\b404\\b`);
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

interface Sent {
  method?: string;
  id?: string | number | null;
}

const isRequest = (m: Sent): boolean => m.method !== undefined && m.id !== undefined && m.id !== null;

export interface ResilientUpstreamOptions {
  /** What the socket is, for messages (its path). */
  where: string;
  log: (line: string) => void;
}

export class ResilientUpstream {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;

  private current: HttpClientTransport | undefined;
  /** The CLI's initialize, replayed to each next companion. */
  private initialize: { message: JSONRPCMessage; body: string | Buffer } | undefined;
  private initializedSent = false;
  private protocol: string | undefined;
  private downSince: number | undefined;
  /** Why the last dial was refused (the relay said it once), while it is. */
  private refusal: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly transportOptions: HttpClientTransportOptions,
    private readonly options: ResilientUpstreamOptions,
  ) {
    this.current = this.open(undefined);
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.protocol = version;
    this.current?.setProtocolVersion(version);
  }

  async sendText(message: JSONRPCMessage, body: string | Buffer): Promise<void> {
    const sent = message as Sent;
    if (sent.method === 'initialize') {
      this.initialize = { message, body };
      // The CLI's own initialize (its first, or after /ide enable) is tried at once on a fresh transport.
      if (!this.current) this.current = this.open(undefined);
    }
    if (sent.method === 'notifications/initialized') this.initializedSent = true;
    const transport = this.current;
    if (!transport) {
      if (isRequest(sent)) throw new Error(this.unavailable());
      this.options.log(`dropped ${sent.method ?? 'a message'}: no companion serves ${this.options.where} now`);
      return;
    }
    try {
      await transport.sendText(message, body);
    } catch (err) {
      const reason = (err as Error).message;
      if (!GONE.test(reason)) throw err;
      this.down(transport, reason);
      // Said without the error's code: the relay ends on those, and this relay stays.
      throw new Error(`${sent.method ?? 'the message'} did not reach the editor: ${this.unavailable()}`);
    }
  }

  async terminateSession(): Promise<void> {
    await this.current?.terminateSession();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current?.close();
  }

  private unavailable(): string {
    if (this.refusal) {
      // Not in the words UNREACHABLE looks for: the relay ends on those, and this relay stays.
      return `the relay ${this.refusal.replace(REFUSED_DIAL, 'refuses to dial')}. The session is kept: it goes on once that is fixed and an editor companion serves the folder.`;
    }
    // A relay just started (doctor's) has seen it down for no time at all: "for 0 s" would say nothing true.
    const seconds = this.downSince === undefined ? 0 : Math.round((Date.now() - this.downSince) / 1000);
    const since = seconds >= 1 ? ` for ${seconds} s` : '';
    return `no editor companion serves ${this.options.where} now${since} (the editor was closed or is restarting). The session is kept: it goes on when the editor (or ide-companion serve) runs in the project again.`;
  }

  /**
   * A transport to the socket. `handshake`, while it is set, takes what the
   * companion sends (the replayed initialize's answer) instead of the CLI.
   */
  private open(handshake: { take: (text: string) => void } | undefined): HttpClientTransport {
    const passThrough = this.transportOptions.passThrough;
    const transport: HttpClientTransport = new HttpClientTransport(this.url, {
      ...this.transportOptions,
      // A dropped GET stream is tried once; then this companion is taken for gone and the socket dialled afresh.
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1, maxRetries: 1 },
      passThrough: (text) => {
        if (transport !== this.current) {
          handshake?.take(text);
          return true;
        }
        return passThrough?.(text) ?? false;
      },
    });
    transport.onmessage = (m) => {
      if (transport !== this.current) handshake?.take(JSON.stringify(m));
      else this.onmessage?.(m);
    };
    transport.onerror = (err) => {
      if (transport !== this.current) return;
      if (GONE.test(err.message)) this.down(transport, err.message);
      else this.onerror?.(err);
    };
    if (this.protocol) transport.setProtocolVersion(this.protocol);
    return transport;
  }

  private down(transport: HttpClientTransport, reason: string): void {
    if (transport !== this.current) return;
    this.current = undefined;
    this.downSince = Date.now();
    this.refusal = REFUSED.exec(reason)?.[0];
    void transport.close().catch(() => undefined);
    // A refusal is said once per reason where it was made.
    if (!this.refusal) this.options.log(`the companion at ${this.options.where} went away (${reason}); the CLI's session is kept, waiting for the next one`);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer || !this.initialize) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.reconnect();
    }, RECONNECT_INTERVAL_MS);
  }

  /** One attempt: the CLI's initialize and initialized replayed on a fresh transport; on success it becomes the current one. */
  private async reconnect(): Promise<void> {
    if (this.closed || this.current || !this.initialize) return;
    let answered: (text: string) => void = () => undefined;
    const answer = new Promise<string>((resolve) => (answered = resolve));
    const transport = this.open({ take: (text) => answered(text) });
    let timer: NodeJS.Timeout | undefined;
    try {
      await transport.sendText(this.initialize.message, this.initialize.body);
      const text = await Promise.race([
        answer,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer to initialize')), HANDSHAKE_TIMEOUT_MS);
        }),
      ]);
      const result = (JSON.parse(text) as { result?: { protocolVersion?: unknown } }).result;
      if (!result) throw new Error('initialize was refused');
      if (typeof result.protocolVersion === 'string') {
        this.protocol = result.protocolVersion;
        transport.setProtocolVersion(result.protocolVersion);
      }
      if (this.closed || this.current) throw new Error('no longer needed');
      this.current = transport;
      this.downSince = undefined;
      this.refusal = undefined;
      this.options.log(`reconnected to the companion at ${this.options.where}; the CLI's session goes on`);
      if (this.initializedSent) await transport.sendText(JSON.parse(INITIALIZED) as JSONRPCMessage, INITIALIZED);
    } catch (err) {
      this.refusal = REFUSED.exec((err as Error).message)?.[0];
      if (transport === this.current) this.current = undefined;
      void transport.close().catch(() => undefined);
      this.schedule();
    } finally {
      clearTimeout(timer);
    }
  }
}
