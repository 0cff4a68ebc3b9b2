/**
 * The architecture doc's three layers (spec/ide-integration-architecture.md),
 * as thin faces over CompanionClient: MCPTransport (discovery + MCP),
 * MCPIDEIntegration (the generic IDEIntegration) and IDEIntegrationManager
 * (initialise without blocking, bridge events to the context store, status).
 */
import type { ActiveFileContext } from '@ide-companion/protocol';
import {
  CompanionClient,
  DEFAULT_AVAILABILITY_TIMEOUT_MS,
  DEFAULT_INIT_TIMEOUT_MS,
  type CompanionClientOptions,
} from './companionClient.js';
import type { ContextStore } from './contextStore.js';

export interface IDEIntegrationConfig {
  environment: Record<string, string | undefined>;
  /** Availability timeout; initialisation gets twice as long (defaults 5 s and 10 s). */
  timeout?: number;
  debug?: boolean;
  /** Not in the doc: where the CLI runs and where discovery files live. */
  cwd?: string;
  tmpdir?: string;
  reconnect?: CompanionClientOptions['reconnect'];
}

export interface IDEIntegration {
  isAvailable(): Promise<boolean>;
  getActiveFileContext(): Promise<ActiveFileContext | null>;
  sendNotification(message: string): Promise<void>;
  setActiveFileChangeHandler(handler: (context: ActiveFileContext | null) => void): void;
  initialize(): Promise<void>;
  cleanup(): Promise<void>;
}

/** The notification `sendNotification` sends; our companion ignores it, others may show it. */
export const CLI_MESSAGE_NOTIFICATION = 'ide/cliMessage';

function clientOptions(config: IDEIntegrationConfig): CompanionClientOptions {
  const availability = config.timeout ?? DEFAULT_AVAILABILITY_TIMEOUT_MS;
  return {
    env: config.environment as NodeJS.ProcessEnv,
    cwd: config.cwd,
    tmpdir: config.tmpdir,
    availabilityTimeoutMs: availability,
    initTimeoutMs: config.timeout ? availability * 2 : DEFAULT_INIT_TIMEOUT_MS,
    reconnect: config.reconnect,
    log: config.debug ? (line) => process.stderr.write(`[ide-client] ${line}\n`) : undefined,
  };
}

export class MCPTransport {
  readonly client: CompanionClient;
  private handler: ((context: ActiveFileContext | null) => void) | undefined;

  constructor(config: IDEIntegrationConfig | CompanionClient) {
    this.client = config instanceof CompanionClient ? config : new CompanionClient(clientOptions(config));
    this.client.onActiveFileChange((active) => this.handler?.(active));
  }

  /** Discovery finds a target and one of them answers the handshake. */
  async isAvailable(): Promise<boolean> {
    return this.client.connect();
  }

  async initialize(): Promise<void> {
    if (!(await this.client.connect())) throw new Error(this.client.status.details ?? 'could not connect to an IDE companion');
  }

  getActiveFile(): Promise<ActiveFileContext | null> {
    return this.client.getActiveFile();
  }

  setNotificationHandler(handler: (context: ActiveFileContext | null) => void): void {
    this.handler = handler;
  }

  sendNotification(message: string): Promise<void> {
    return this.client.sendNotification(CLI_MESSAGE_NOTIFICATION, { message });
  }

  cleanup(): Promise<void> {
    return this.client.stop();
  }
}

export class MCPIDEIntegration implements IDEIntegration {
  constructor(readonly transport: MCPTransport) {}

  isAvailable(): Promise<boolean> {
    return this.transport.isAvailable();
  }
  getActiveFileContext(): Promise<ActiveFileContext | null> {
    return this.transport.getActiveFile();
  }
  sendNotification(message: string): Promise<void> {
    return this.transport.sendNotification(message);
  }
  setActiveFileChangeHandler(handler: (context: ActiveFileContext | null) => void): void {
    this.transport.setNotificationHandler(handler);
  }
  initialize(): Promise<void> {
    return this.transport.initialize();
  }
  cleanup(): Promise<void> {
    return this.transport.cleanup();
  }
}

export interface IDEIntegrationStatus {
  active: boolean;
  integration?: { type: string; available: boolean };
  /** Not in the doc: why not active, in words. */
  details?: string;
}

export class IDEIntegrationManager {
  private integration: MCPIDEIntegration | null = null;
  private client: CompanionClient | null = null;

  /** Never throws and never waits for the companion: failures show up in getStatus(). */
  async initialize(config: IDEIntegrationConfig): Promise<void> {
    await this.cleanup();
    this.client = new CompanionClient(clientOptions(config));
    this.integration = new MCPIDEIntegration(new MCPTransport(this.client));
    this.client.start();
  }

  /** One blocking attempt; true when connected. */
  async connectToMCP(config: IDEIntegrationConfig): Promise<boolean> {
    if (!this.client) await this.initialize({ ...config, reconnect: config.reconnect ?? false });
    return this.client!.connect();
  }

  async getStatus(): Promise<IDEIntegrationStatus> {
    if (!this.client) return { active: false, details: 'not initialised' };
    const state = this.client.status;
    return {
      active: state.status === 'connected',
      integration: { type: 'mcp', available: state.status === 'connected' },
      details: state.details,
    };
  }

  getActiveIntegration(): IDEIntegration | null {
    return this.isActive() ? this.integration : null;
  }

  /** The store the integration's context updates land in. */
  get contextStore(): ContextStore | undefined {
    return this.client?.context;
  }

  get companionClient(): CompanionClient | null {
    return this.client;
  }

  isActive(): boolean {
    return this.client?.status.status === 'connected';
  }

  async cleanup(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.integration = null;
    await client?.stop();
  }
}
