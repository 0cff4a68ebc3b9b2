/**
 * The JSON-lines end (docs/editor-protocol.md): the host core (server/scriptHost.ts) framed as one JSON
 * object per line on a stream pair, for editor-side scripts (Vim, Emacs, micro, Kakoune's bridge). The
 * script's lines become the core's hello, events and health asks; its requests go out with an id and
 * come back as `response` lines, each awaited within its timeout, so a slow or dead script never hangs
 * a tool call. Bad lines are answered with `{"type":"error"}` and change nothing.
 *
 *   const bridge = new JsonLinesBridge(stdin, stdout, { logger, exit, defaults });
 *   // the script's hello starts the companion; `ready` tells it the port
 *   await bridge.host.stop('stdin closed');
 */
import * as z from 'zod/mini';
import { AGENT_DISPLAY_NAMES, AGENT_SHORT_NAMES, servedAgentNames } from '@ide-companion/shared/agentPaths';
import { EditorEventError, parseEditorEvent } from '@ide-companion/server/editorEvents';
import { describeError } from '@ide-companion/server/logger';
import type { SessionInfo } from '@ide-companion/server/sessions';
import { healthLines } from '@ide-companion/server/healthLines';
import { ScriptHost, type HostProblem, type ReadyInfo, type ScriptFraming, type ScriptHostOptions } from '@ide-companion/server/scriptHost';
import {
  containerTerminalWords,
  EDITOR_ACTIONS,
  HelloSchema,
  LineReader,
  MAX_MESSAGE_BYTES,
  oversizeMessage,
  sessionChangeWords,
  sessionsWords,
  ResponseSchema,
  type ActionParams,
  type ActionResult,
  type EditorActionName,
  type HostLine,
  type Response,
} from '@ide-companion/protocol';

/** Surrogates without their pair. */
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

interface Pending {
  action: EditorActionName;
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export interface JsonLinesBridgeOptions extends ScriptHostOptions {
  /** Action timeouts; default each action's own (EDITOR_ACTIONS). For tests. */
  timeoutMs?: (action: EditorActionName) => number;
}

export class JsonLinesBridge implements ScriptFraming {
  readonly host: ScriptHost;
  private helloSeen = false;
  /** The agents of the sessions last said, for the next change's words. */
  private agents: string[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly lines: LineReader;
  private readonly timeoutMs: ((action: EditorActionName) => number) | undefined;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    options: JsonLinesBridgeOptions,
  ) {
    this.timeoutMs = options.timeoutMs;
    this.host = new ScriptHost(this, options);
    // Lines as bytes, each at most MAX_MESSAGE_BYTES (an accepted 32 MiB file, JSON-escaped, fits): a longer
    // one is answered with an error and dropped, never held whole (readline's string ended the host at 512 MiB).
    this.lines = new LineReader({
      maxBytes: MAX_MESSAGE_BYTES,
      onLine: (line) => this.receive(line.toString('utf8')),
      onOversize: (max) => {
        options.logger.warn('refused a line from the editor', { error: oversizeMessage(max) });
        this.error(oversizeMessage(max));
      },
    });
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
  }

  private readonly onData = (chunk: Buffer | string) => this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => this.lines.end();

  ready(info: ReadyInfo): void {
    const companion = this.host.companion!;
    const { discoveryFile, env, containerHint, socketPath, ...rest } = info;
    this.send({
      type: 'ready',
      ...rest,
      discoveryFile: discoveryFile ?? '',
      // In a container it holds REMOTE_CONTAINERS=1 (server/terminalEnv.ts): gemini there dials loopback, where this host listens.
      env: env as Record<string, string>,
      capabilities: [...companion.capabilities],
      ...(containerHint ? { containerHint, containerSaid: containerTerminalWords(companion.ideInfo.displayName) } : {}),
      ...(socketPath ? { socketPath } : {}),
      health: this.health(),
      ...this.sessionsWords([]),
    });
  }

  sessions(sessions: readonly SessionInfo[]): void {
    const before = this.agents;
    const agents = (this.agents = sessions.map((session) => AGENT_DISPLAY_NAMES[session.agent]));
    this.send({
      type: 'sessions',
      count: sessions.length,
      agents,
      said: sessionChangeWords(before, agents),
      health: this.health(sessions),
      ...this.sessionsWords(sessions),
    });
  }

  /** The script learns new folders from its own `roots` events: nothing to say. */
  roots(): void {}

  tell(problem: HostProblem): void {
    this.error(problem.message);
  }

  failed(message: string): void {
    this.error(`the companion could not start: ${message}`);
  }

  /** Who is served and connected, as the end shows it (sessionsWords): the agents the sessions belong to, never a guess. */
  private sessionsWords(sessions: readonly SessionInfo[]): { summary: string; label: string } {
    return sessionsWords(
      servedAgentNames(this.host.companion!.agents),
      sessions.map((session) => AGENT_DISPLAY_NAMES[session.agent]),
      sessions.map((session) => AGENT_SHORT_NAMES[session.agent]),
    );
  }

  /** The shared health report as lines, made now. */
  private health(sessions?: readonly SessionInfo[]): string[] {
    return healthLines(this.host.health(sessions) ?? []);
  }

  /** A line for the script to show as it is (server/hostRestarts.ts). */
  say(said: { level: 'warning' | 'error'; message: string }): void {
    this.send({ type: 'say', ...said });
  }

  /** Tells the script something went wrong (a start failure, say). */
  error(message: string): void {
    this.send({ type: 'error', message });
  }

  close(): void {
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    // As readline's close did: a paused stdin no longer holds the process open.
    this.input.pause();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('the editor went away'));
      this.pending.delete(id);
    }
  }

  /** Sends an action request and waits for the script's answer, validated against the action's result schema. */
  request<N extends EditorActionName>(action: N, params: ActionParams<N>): Promise<ActionResult<N>> {
    if (this.closed) return Promise.reject(new Error('the editor went away'));
    const id = this.nextId++;
    const timeoutMs = this.timeoutMs?.(action) ?? EDITOR_ACTIONS[action].timeoutMs;
    return new Promise<ActionResult<N>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the editor did not answer ${action} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, { action, resolve: resolve as (r: unknown) => void, reject, timer });
      this.send({ type: 'request', id, action, params } as HostLine);
    });
  }

  private send(line: HostLine): void {
    if (this.closed) return;
    let text = JSON.stringify(line);
    // JSON.stringify escapes a lone surrogate (`\ud83d`), which Emacs's json-parse refuses, dropping the whole line:
    // such text is sent as UTF-8 would carry it (U+FFFD), which is also what a write of it puts on disk.
    if (text.includes('\\ud'))
      text = JSON.stringify(line, (_key, value: unknown) => (typeof value === 'string' ? value.replace(LONE_SURROGATES, '\ufffd') : value));
    this.output.write(`${text}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      return this.error(`not JSON: ${describeError(err)}`);
    }
    const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
    try {
      if (type === 'hello') return this.receiveHello(json);
      if (!this.helloSeen) return this.error(`the first line must be {"type":"hello",...}; got ${JSON.stringify(type ?? null)}`);
      if (type === 'response') return this.receiveResponse(parse(ResponseSchema, json, 'response'));
      // The editor's health check asks for the report made now (the files may have gone since `sessions`).
      if (type === 'health') return this.host.companion ? this.send({ type: 'health', health: this.health() }) : this.error('the companion is not ready');
      this.host.event(parseEditorEvent(json));
    } catch (err) {
      this.error(describeError(err));
    }
  }

  private receiveHello(json: unknown): void {
    if (this.helloSeen) return this.error('hello was already received');
    const hello = parse(HelloSchema, json, 'hello');
    this.helloSeen = true;
    this.host.hello(hello);
  }

  private receiveResponse(response: Response): void {
    const pending = this.pending.get(response.id);
    if (!pending) return; // answered after its timeout: the caller has moved on
    this.pending.delete(response.id);
    clearTimeout(pending.timer);
    if ('error' in response) return pending.reject(new Error(response.error));
    const parsed = EDITOR_ACTIONS[pending.action].result.safeParse(response.result ?? null);
    if (parsed.success) pending.resolve(parsed.data);
    else pending.reject(new Error(`malformed answer to ${pending.action}: ${z.prettifyError(parsed.error)}`));
  }
}

function parse<T extends z.ZodMiniType>(schema: T, json: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new EditorEventError(`invalid ${what}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
