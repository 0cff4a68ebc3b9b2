/**
 * The CLI side of the integration in one object: discovery, a connection with
 * the real CLI's handshake, the context store, diffs, getActiveFile, status,
 * and (our addition) reconnecting with backoff when the companion goes away.
 *
 * `start()` never blocks and never throws: failures become a status, as the
 * architecture doc's "non-blocking initialization" asks.
 */
import {
  ActiveFileNotification,
  ContextUpdateNotification,
  DIFF_REQUEST_TIMEOUT_MS,
  DiffAcceptedNotification,
  DiffClosedNotification,
  DiffRejectedNotification,
  GetActiveFileTool,
  parseActiveFile,
  type ActiveFileContext,
  type IdeContext,
  type IdeInfo,
} from '@ide-companion/protocol';
import { CompanionConnection, offersDiffs, type IncomingNotification } from './connection.js';
import { ContextStore } from './contextStore.js';
import { closeDiff, DiffTracker, type DiffOutcome } from './diffs.js';
import { discoverCompanion, type ConnectionTarget, type DiscoveryOptions, type DiscoveryResult } from './discovery.js';
import { describeTarget } from './transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_AVAILABILITY_TIMEOUT_MS = 5_000;
export const DEFAULT_INIT_TIMEOUT_MS = 10_000;

export type ConnectionStatus = 'disconnected' | 'connecting' | 'connected';

export interface ClientState {
  status: ConnectionStatus;
  /** Why disconnected, in words a user can act on. */
  details?: string;
}

export interface ReconnectOptions {
  /** First wait after a drop; doubles each failed attempt. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export interface CompanionClientOptions extends DiscoveryOptions {
  /** Per target: connect + initialize + tools/list (default 5 s). */
  availabilityTimeoutMs?: number;
  /** Whole connect: discovery and every target (default 10 s). */
  initTimeoutMs?: number;
  /** Reconnect after a drop or a failed start (default on). `false` behaves like the real CLI. */
  reconnect?: boolean | ReconnectOptions;
  /** Ping interval to notice silent drops; 0 disables (default 10 s). */
  heartbeatMs?: number;
  /** openDiff/closeDiff request timeout (default 10 minutes, as the CLI). */
  requestTimeoutMs?: number;
  /** Debug lines; never given tokens or file contents. */
  log?: (line: string) => void;
}

export interface TargetAttempt {
  target: string;
  ok: boolean;
  error?: string;
}

/** Calls every listener; one listener's bug must not stop the others or break the connection logic. */
function notifyAll<A extends unknown[]>(listeners: Iterable<(...args: A) => void>, ...args: A): void {
  for (const l of listeners) {
    try {
      l(...args);
    } catch {
      // Ignored: see above.
    }
  }
}

export class CompanionClient {
  readonly context = new ContextStore();
  private readonly diffs: DiffTracker;
  private connection: CompanionConnection | undefined;
  private state: ClientState = { status: 'disconnected', details: 'not started' };
  private lastDiscovery: DiscoveryResult | undefined;
  private lastAttempts: TargetAttempt[] = [];
  private stopped = false;
  private started = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private connecting: Promise<boolean> | undefined;
  private readonly statusListeners = new Set<(state: ClientState) => void>();
  private readonly trustListeners = new Set<(trusted: boolean) => void>();
  private readonly activeFileListeners = new Set<(active: ActiveFileContext | null) => void>();
  private readonly invalidListeners = new Set<(method: string, error: string) => void>();
  private lastActiveKey = '';

  constructor(private readonly options: CompanionClientOptions = {}) {
    this.diffs = new DiffTracker(options.requestTimeoutMs ?? DIFF_REQUEST_TIMEOUT_MS);
    this.retryDelay = this.reconnectOptions()?.initialDelayMs ?? 250;
    this.context.subscribe(() => this.emitActiveFile(this.activeFromContext()));
  }

  /** Begins connecting in the background; returns at once. Keeps retrying if reconnect is on. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.connect().then((ok) => {
      if (!ok) this.scheduleRetry();
    });
  }

  /** One connection attempt (discovery, then each target in order). Resolves false on failure, never rejects. */
  connect(): Promise<boolean> {
    if (this.connection?.isOpen) return Promise.resolve(true);
    this.connecting ??= this.doConnect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  get status(): ClientState {
    return { ...this.state };
  }

  get discovery(): DiscoveryResult | undefined {
    return this.lastDiscovery;
  }

  /** Each target tried in the last attempt, with the error if it failed. */
  get attempts(): TargetAttempt[] {
    return [...this.lastAttempts];
  }

  get target(): ConnectionTarget | undefined {
    return this.connection?.isOpen ? this.connection.target : undefined;
  }

  get tools(): string[] {
    return this.connection?.isOpen ? [...this.connection.tools] : [];
  }

  get ideInfo(): IdeInfo | undefined {
    const d = this.lastDiscovery;
    return d?.ideInfo ?? (d?.ide ? { name: d.ide.name, displayName: d.ide.displayName } : undefined);
  }

  /** As the CLI: diffs only when connected and the companion offers openDiff and closeDiff. */
  isDiffingEnabled(): boolean {
    return this.state.status === 'connected' && offersDiffs(this.tools);
  }

  /** Resolves with the user's decision; rejects if not connected, if the companion refuses, or the connection drops. */
  openDiff(filePath: string, newContent: string): Promise<DiffOutcome> {
    return this.diffs.open(() => (this.connection?.isOpen ? this.connection : undefined), filePath, newContent);
  }

  /** `closeDiff`: the view's current text, or undefined. */
  closeDiff(filePath: string): Promise<string | undefined> {
    return closeDiff(this.connection?.isOpen ? this.connection : undefined, filePath, this.options.requestTimeoutMs);
  }

  /** The user answered in the terminal: close the view and settle the pending diff ourselves. */
  resolveDiffFromCli(filePath: string, outcome: 'accepted' | 'rejected'): Promise<DiffOutcome | undefined> {
    return this.diffs.resolveFromCli(this.connection?.isOpen ? this.connection : undefined, filePath, outcome);
  }

  pendingDiffs(): string[] {
    return this.diffs.list();
  }

  /**
   * The architecture doc's getActiveFile: the companion's tool when offered,
   * else the active file from the last context update. Null when none.
   */
  async getActiveFile(): Promise<ActiveFileContext | null> {
    const connection = this.connection?.isOpen ? this.connection : undefined;
    if (connection?.tools.includes(GetActiveFileTool.name)) {
      const result = await connection.callTool(GetActiveFileTool.name, {}, this.options.availabilityTimeoutMs ?? DEFAULT_AVAILABILITY_TIMEOUT_MS);
      const block = result.content.find((p) => p.type === 'text');
      const text = block && 'text' in block ? String(block.text) : '';
      if (result.isError) throw new Error(`getActiveFile failed: ${text || 'error without text'}`);
      const parsed = parseActiveFile(text);
      if (parsed === undefined) throw new Error(`getActiveFile answered in an unknown form: ${JSON.stringify(text.slice(0, 200))}`);
      return parsed;
    }
    return this.activeFromContext();
  }

  /**
   * Calls any tool of the connected companion by name and returns its result as
   * is (`isError` included). Rejects when not connected, when no answer comes
   * within `timeoutMs` (default `availabilityTimeoutMs`), or when the connection
   * drops before the answer: never hangs.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    timeoutMs = this.options.availabilityTimeoutMs ?? DEFAULT_AVAILABILITY_TIMEOUT_MS,
  ): Promise<CallToolResult> {
    const connection = this.connection?.isOpen ? this.connection : undefined;
    if (!connection) throw new Error(`not connected to an IDE companion${this.state.details ? `: ${this.state.details}` : ''}`);
    return connection.callTool(name, args, timeoutMs);
  }

  /** Waits until a context update has arrived (resolves with it), or undefined after `timeoutMs`. */
  waitForContext(timeoutMs: number): Promise<IdeContext | undefined> {
    const now = this.context.get();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        unsubscribe();
        resolve(undefined);
      }, timeoutMs);
      const unsubscribe = this.context.subscribe((ctx) => {
        if (!ctx) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(ctx);
      });
    });
  }

  /** Sends a notification to the companion (the architecture doc's sendNotification). */
  async sendNotification(method: string, params: Record<string, unknown> = {}): Promise<void> {
    if (!this.connection?.isOpen) throw new Error('not connected to an IDE companion');
    await this.connection.notify(method, params);
  }

  onStatusChange(listener: (state: ClientState) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onTrustChange(listener: (trusted: boolean) => void): () => void {
    this.trustListeners.add(listener);
    return () => this.trustListeners.delete(listener);
  }

  onActiveFileChange(listener: (active: ActiveFileContext | null) => void): () => void {
    this.activeFileListeners.add(listener);
    return () => this.activeFileListeners.delete(listener);
  }

  /** A notification failed its schema (it was ignored). */
  onInvalidNotification(listener: (method: string, error: string) => void): () => void {
    this.invalidListeners.add(listener);
    return () => this.invalidListeners.delete(listener);
  }

  /** Disconnects for good: pending diffs fail, no more reconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    this.diffs.failAll('the client was stopped');
    await connection?.close();
    this.setState({ status: 'disconnected', details: 'IDE integration stopped.' });
    this.context.clear();
  }

  private async doConnect(): Promise<boolean> {
    if (this.stopped) return false;
    this.setState({ status: 'connecting' });
    const deadline = Date.now() + (this.options.initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS);
    let discovery: DiscoveryResult;
    try {
      // The IDE process does not change within a session: walk the tree once.
      discovery = await discoverCompanion({ ...this.options, ideProcess: this.options.ideProcess ?? this.lastDiscovery?.ideProcess });
    } catch (err) {
      this.setState({ status: 'disconnected', details: `discovery failed: ${(err as Error).message}` });
      return false;
    }
    this.lastDiscovery = discovery;
    this.lastAttempts = [];
    if (discovery.problem) {
      this.setState({ status: 'disconnected', details: discovery.problem });
      return false;
    }
    for (const target of discovery.targets) {
      const left = deadline - Date.now();
      if (left <= 0 || this.stopped) {
        this.lastAttempts.push({ target: describeTarget(target), ok: false, error: 'initialization timeout reached before trying' });
        continue;
      }
      let opened: CompanionConnection | undefined;
      try {
        const connection = await CompanionConnection.open(
          target,
          {
            onNotification: (n) => this.onNotification(n),
            onInvalidNotification: (method, error) => this.onInvalid(method, error),
            onLost: (reason) => this.onLost(opened, reason),
          },
          { timeoutMs: Math.min(left, this.options.availabilityTimeoutMs ?? DEFAULT_AVAILABILITY_TIMEOUT_MS), heartbeatMs: this.options.heartbeatMs ?? 10_000 },
        );
        opened = connection;
        if (this.stopped || !connection.isOpen) {
          await connection.close();
          if (this.stopped) return false;
          throw new Error('the connection dropped right after the handshake');
        }
        this.lastAttempts.push({ target: describeTarget(target), ok: true });
        this.connection = connection;
        this.retryDelay = this.reconnectOptions()?.initialDelayMs ?? 250;
        this.log(`connected to ${describeTarget(target)}`);
        this.setState({ status: 'connected' });
        return true;
      } catch (err) {
        const message = (err as Error).message;
        this.lastAttempts.push({ target: describeTarget(target), ok: false, error: message });
        this.log(`could not connect to ${describeTarget(target)}: ${message}`);
      }
    }
    const name = this.ideInfo?.displayName ?? 'your IDE';
    this.setState({
      status: 'disconnected',
      details: `Failed to connect to IDE companion extension in ${name}. Please ensure the extension is running. (${this.lastAttempts.map((a) => `${a.target}: ${a.error}`).join('; ')})`,
    });
    return false;
  }

  private onNotification(n: IncomingNotification): void {
    switch (n.method) {
      case ContextUpdateNotification.method: {
        this.context.set(n.params);
        const trusted = n.params.workspaceState?.isTrusted;
        if (trusted !== undefined) notifyAll(this.trustListeners, trusted);
        break;
      }
      case DiffAcceptedNotification.method:
        this.diffs.accepted(n.params.filePath, n.params.content);
        break;
      case DiffRejectedNotification.method:
      case DiffClosedNotification.method:
        this.diffs.rejected(n.params.filePath);
        break;
      case ActiveFileNotification.method:
        this.emitActiveFile(n.params.filePath ? { filePath: n.params.filePath, ...(n.params.cursor ? { cursor: n.params.cursor } : {}) } : null);
        break;
    }
  }

  private onInvalid(method: string, error: string): void {
    this.log(`ignored an invalid ${method}: ${error}`);
    notifyAll(this.invalidListeners, method, error);
  }

  private onLost(connection: CompanionConnection | undefined, reason: string): void {
    if (!connection || this.connection !== connection) return;
    this.connection = undefined;
    this.diffs.failAll(`the connection to the IDE companion was lost: ${reason}`);
    this.context.clear();
    const reconnecting = !this.stopped && this.reconnectOptions() !== undefined;
    this.setState({
      status: 'disconnected',
      details: `IDE connection lost (${reason}).${reconnecting ? ' Reconnecting automatically.' : ' To reconnect, run /ide enable.'}`,
    });
    if (reconnecting) this.scheduleRetry();
  }

  private scheduleRetry(): void {
    const options = this.reconnectOptions();
    if (!options || this.stopped || this.retryTimer) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, options.maxDelayMs ?? 5_000);
    this.log(`reconnecting in ${delay} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect().then((ok) => {
        if (!ok) this.scheduleRetry();
      });
    }, delay);
  }

  private reconnectOptions(): ReconnectOptions | undefined {
    const r = this.options.reconnect ?? true;
    if (r === false) return undefined;
    return r === true ? {} : r;
  }

  private activeFromContext(): ActiveFileContext | null {
    const active = this.context.activeFile();
    return active ? { filePath: active.path, ...(active.cursor ? { cursor: active.cursor } : {}) } : null;
  }

  private emitActiveFile(active: ActiveFileContext | null): void {
    const key = JSON.stringify(active);
    if (key === this.lastActiveKey) return;
    this.lastActiveKey = key;
    notifyAll(this.activeFileListeners, active);
  }

  private setState(state: ClientState): void {
    const same = state.status === this.state.status && state.details === this.state.details;
    this.state = state;
    if (same) return;
    // A copy each: a listener that changes its state object changes no one else's.
    for (const l of this.statusListeners) notifyAll([l], { ...state });
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}
