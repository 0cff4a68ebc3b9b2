/**
 * One ACP agent run as our subprocess, on the official SDK: initialize (we
 * offer fs read and write, and terminals), session/new in the folder, then prompt turns that
 * carry the editor's context. Every wait is raced with the agent's exit and
 * bounded: a crashed or stuck agent becomes an AgentError in words, never a
 * hang, and the caller's terminal keeps working.
 */
import { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { ClientConnection, ContentBlock, InitializeResponse, PromptCapabilities, SessionMode, StopReason } from '@agentclientprotocol/sdk';
import type { CompanionClient } from '../companionClient.js';
import { VERSION } from '../version.js';
import { AgentProcess, type AgentExit } from './agentProcess.js';
import { IdeBridge, type AgentUi } from './ideBridge.js';
import { contextBlocks } from './promptContext.js';
import { Terminals } from './terminals.js';
import { warmSessionUpdates } from './warmUp.js';

export class AgentError extends Error {
  override name = 'AgentError';
}

export interface AgentSessionOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  ui: AgentUi;
  /** The editor's companion (started by the caller); undefined: no IDE mode. */
  companion?: CompanionClient | undefined;
  /** Where the agent may read and write (default: cwd). */
  roots?: readonly string[];
  maxMessageBytes?: number;
  /** For initialize and session/new together (default 60 s: agents load a lot at start). */
  startTimeoutMs?: number;
  /** After a cancel, how long the agent has to end the turn before we stop waiting (default 5 s). */
  cancelGraceMs?: number;
}

/** How an agent's exit reads to a user. */
export function describeExit(command: string, exit: AgentExit): string {
  if (exit.spawnError) return `could not start ${command}: ${exit.spawnError}`;
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const tail = exit.stderrTail ? `; its last output:\n${exit.stderrTail.split('\n').slice(-8).join('\n')}` : '';
  return `the agent (${command}) ${how}${tail}`;
}

/** The agent's modes (session/new's `modes`), the current one kept up to date by its current_mode_update. */
export interface ModeState {
  currentModeId: string;
  readonly availableModes: readonly SessionMode[];
}

/** For session/set_mode (a quick switch, not a turn). */
const SET_MODE_TIMEOUT_MS = 10_000;

export class AgentSession {
  private turn: { cancel: () => void } | undefined;

  private constructor(
    private readonly options: AgentSessionOptions,
    readonly process: AgentProcess,
    private readonly connection: ClientConnection,
    private readonly bridge: IdeBridge,
    private readonly terminals: Terminals,
    readonly init: InitializeResponse,
    readonly sessionId: string,
    private readonly modeState: ModeState | undefined,
  ) {}

  static async start(options: AgentSessionOptions): Promise<AgentSession> {
    const { ui } = options;
    const proc = new AgentProcess({
      command: options.command,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      maxMessageBytes: options.maxMessageBytes,
      onProblem: (m) => ui.notice(m),
    });
    const roots = options.roots ?? [options.cwd];
    const bridge = new IdeBridge({ ui, companion: options.companion, roots });
    const terminals = new Terminals({ ui, cwd: options.cwd, roots });
    let sessionId = '';
    let modes: ModeState | undefined;
    const app = client({ name: 'ide-companion' })
      .onRequest(methods.client.fs.readTextFile, ({ params }) => bridge.readTextFile(params))
      .onRequest(methods.client.fs.writeTextFile, ({ params }) => bridge.writeTextFile(params))
      .onRequest(methods.client.session.requestPermission, ({ params }) => bridge.requestPermission(params))
      .onRequest(methods.client.terminal.create, ({ params }) => terminals.create(params))
      .onRequest(methods.client.terminal.output, ({ params }) => terminals.output(params))
      .onRequest(methods.client.terminal.waitForExit, ({ params }) => terminals.waitForExit(params))
      .onRequest(methods.client.terminal.kill, ({ params }) => terminals.kill(params))
      .onRequest(methods.client.terminal.release, ({ params }) => terminals.release(params))
      .onNotification(methods.client.session.update, ({ params }) => {
        if (params.sessionId !== sessionId) return;
        if (params.update.sessionUpdate === 'current_mode_update' && modes) modes.currentModeId = params.update.currentModeId;
        ui.update(params.update);
        bridge.onUpdate(params.update);
      });
    const connection = app.connect(proc.stream);
    // While the agent starts: the first update it streams then takes no first-use cost (warmUp.ts).
    const warm = warmSessionUpdates();
    const startMs = options.startTimeoutMs ?? 60_000;
    const deadline = Date.now() + startMs;
    const bounded = <T>(what: string, p: Promise<T>) => race(proc, options.command, `${what} (start-up time allowed: ${startMs} ms)`, p, deadline - Date.now());
    try {
      const init: InitializeResponse = await bounded(
        'initialize',
        connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          clientInfo: { name: 'ide-companion', version: VERSION },
        }),
      );
      const created = await bounded('session/new', connection.agent.request(methods.agent.session.new, { cwd: options.cwd, mcpServers: [] }));
      // Only a well-formed list is kept: an agent's garbage here would only mislead /mode.
      const offered = created.modes;
      if (offered && Array.isArray(offered.availableModes) && offered.availableModes.length > 0 && typeof offered.currentModeId === 'string') {
        modes = { currentModeId: offered.currentModeId, availableModes: offered.availableModes.filter((m) => typeof m?.id === 'string') };
      }
      sessionId = created.sessionId;
      await warm;
      return new AgentSession(options, proc, connection, bridge, terminals, init, created.sessionId, modes);
    } catch (err) {
      connection.close();
      await terminals.closeAll();
      await proc.stop();
      throw err;
    }
  }

  get promptCapabilities(): PromptCapabilities | undefined {
    return this.init.agentCapabilities?.promptCapabilities ?? undefined;
  }

  get agentName(): string {
    const info = this.init.agentInfo;
    return info ? `${info.title ?? info.name}${info.version ? ` ${info.version}` : ''}` : this.options.command;
  }

  get running(): boolean {
    return this.turn !== undefined;
  }

  /** The blocks a prompt of `text` is sent as: what the agent should hear of the last turn (the user's edits to its changes), the editor's context, then the text. */
  promptBlocks(text: string, notes: readonly string[] = []): ContentBlock[] {
    const companion = this.options.companion;
    const ctx = companion?.status.status === 'connected' ? companion.context.get() : undefined;
    const heard: ContentBlock[] = notes.length > 0 ? [{ type: 'text', text: notes.join('\n') }] : [];
    return [...heard, ...contextBlocks(ctx, this.promptCapabilities), { type: 'text', text }];
  }

  /** One turn; resolves with its stop reason. Rejects with AgentError when the agent exits, or stays silent after a cancel. */
  async prompt(text: string): Promise<StopReason> {
    if (this.turn) throw new AgentError('a turn is already running (/cancel it first)');
    this.terminals.beginTurn();
    const request = this.connection.agent.request(methods.agent.session.prompt, {
      sessionId: this.sessionId,
      prompt: this.promptBlocks(text, this.bridge.takeNotes()),
    });
    let abandon: (err: Error) => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => (abandon = reject));
    let graceTimer: NodeJS.Timeout | undefined;
    this.turn = {
      cancel: () => {
        // The turn's commands too: a Ctrl-C stops what the agent started for it.
        this.terminals.killTurn();
        void this.connection.agent.notify(methods.agent.session.cancel, { sessionId: this.sessionId }).catch(() => undefined);
        graceTimer ??= setTimeout(
          () =>
            abandon(new AgentError(`the agent did not end the turn within ${this.options.cancelGraceMs ?? 5_000} ms of the cancel; stopped waiting for it`)),
          this.options.cancelGraceMs ?? 5_000,
        );
      },
    };
    try {
      const response = await race(this.process, this.options.command, 'session/prompt', Promise.race([request, abandoned]), undefined);
      return response.stopReason;
    } finally {
      if (graceTimer) clearTimeout(graceTimer);
      // The user's edits written over the agent's own writes of this turn, before the prompt is back.
      await this.bridge.endTurn();
      this.turn = undefined;
    }
  }

  /** The agent's modes, when it offers some (else undefined). */
  get modes(): Readonly<ModeState> | undefined {
    return this.modeState;
  }

  /**
   * Switches the agent's mode (session/set_mode; allowed during a turn too). An id the agent
   * did not offer is refused here, naming the ones it did, without asking the agent.
   */
  async setMode(modeId: string): Promise<SessionMode> {
    const state = this.modeState;
    if (!state) throw new AgentError('the agent offers no modes');
    const mode = state.availableModes.find((m) => m.id === modeId);
    if (!mode) throw new AgentError(`unknown mode ${modeId}; the agent offers: ${state.availableModes.map((m) => m.id).join(', ')}`);
    await race(
      this.process,
      this.options.command,
      'session/set_mode',
      this.connection.agent.request(methods.agent.session.setMode, { sessionId: this.sessionId, modeId }),
      SET_MODE_TIMEOUT_MS,
    );
    state.currentModeId = modeId;
    return mode;
  }

  /** Asks the agent to end the running turn (session/cancel); false when none runs. */
  cancel(): boolean {
    if (!this.turn) return false;
    this.turn.cancel();
    return true;
  }

  async close(): Promise<AgentExit> {
    this.connection.close();
    await this.terminals.closeAll();
    return this.process.stop();
  }
}

/** `p`, unless the agent exits first or `timeoutMs` passes: then an AgentError naming `what`. */
async function race<T>(proc: AgentProcess, command: string, what: string, p: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout =
    timeoutMs === undefined
      ? new Promise<never>(() => undefined)
      : new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new AgentError(`the agent (${command}) did not answer ${what}`)), Math.max(0, timeoutMs));
        });
  const exit = proc.exited.then((e) => {
    throw new AgentError(describeExit(command, e));
  });
  try {
    return await Promise.race([
      p.catch((err: unknown) => {
        if (err instanceof AgentError) throw err;
        // A message the agent sent back (its JSON-RPC error), in its words.
        const message = err instanceof Error ? err.message : String(err);
        throw new AgentError(`${what} failed: ${message}`);
      }),
      timeout,
      exit,
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
