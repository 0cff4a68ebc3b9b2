/**
 * The JSON-lines end (docs/editor-protocol.md): connects a Companion to an
 * editor-side script speaking the editor vocabulary, one JSON object per line.
 * The script reports events and answers action requests; all protocol logic
 * stays in the Companion.
 *
 *   const bridge = new JsonLinesBridge(stdin, stdout);
 *   const hello = await bridge.hello;                       // the script's first line
 *   const companion = new Companion({ ..., editor: bridge.editorActions(capabilities) });
 *   await companion.start();
 *   bridge.attach(companion);                                // sends `ready`
 *
 * Bad lines are answered with `{"type":"error"}` and change nothing. Every
 * request has a timeout, so a slow or dead script never hangs a tool call.
 */
import * as fs from 'node:fs';
import * as z from 'zod/mini';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { acpLauncher } from '@ide-companion/shared/acpLauncher';
import { AGENT_DISPLAY_NAMES, AGENT_SHORT_NAMES, servedAgentNames } from '@ide-companion/shared/agentPaths';
import { EditorEventError, parseEditorEvent } from '@ide-companion/server/editorEvents';
import { editorWithCapabilities, type EditorActions } from '@ide-companion/server/editorActions';
import { describeError, silentLogger, type Logger } from '@ide-companion/server/logger';
import { type Companion } from '@ide-companion/server/companion';
import type { SessionInfo } from '@ide-companion/server/sessions';
import { PositionIntake } from '@ide-companion/server/positionIntake';
import { diagnosticsFromItems } from '@ide-companion/server/diagnosticItems';
import { healthItems, healthLines } from '@ide-companion/server/healthLines';
import {
  containerTerminalWords,
  EDITOR_ACTIONS,
  HelloSchema,
  hostGoneWords,
  LineReader,
  MAX_MESSAGE_BYTES,
  oversizeMessage,
  sessionChangeWords,
  sessionsWords,
  UNHEARD_MENTION,
  ResponseSchema,
  type ActionParams,
  type ActionResult,
  type EditorActionName,
  type EditorEvent,
  type Hello,
  type HostLine,
  type Response,
} from '@ide-companion/protocol';

/** Surrogates without their pair. */
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Events held while the companion starts; a script flooding before `ready` is told so. */
const MAX_EARLY_EVENTS = 10_000;

interface Pending {
  action: EditorActionName;
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class JsonLinesBridge {
  /** The script's `hello`; never settles if the script sends none. */
  readonly hello: Promise<Hello>;
  private resolveHello!: (hello: Hello) => void;
  private helloSeen = false;
  private companion: Companion | undefined;
  private intake: PositionIntake | undefined;
  private readonly early: EditorEvent[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly input: NodeJS.ReadableStream;
  private readonly lines: LineReader;
  private closed = false;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    /** Action timeouts; default each action's own (EDITOR_ACTIONS). For tests. */
    private readonly timeoutMs?: (action: EditorActionName) => number,
    private readonly logger: Logger = silentLogger,
  ) {
    this.hello = new Promise((resolve) => (this.resolveHello = resolve));
    // Lines as bytes, each at most MAX_MESSAGE_BYTES (an accepted 32 MiB file, JSON-escaped, fits): a longer
    // one is answered with an error and dropped, never held whole (readline's string ended the host at 512 MiB).
    this.lines = new LineReader({
      maxBytes: MAX_MESSAGE_BYTES,
      onLine: (line) => this.receive(line.toString('utf8')),
      onOversize: (max) => {
        this.logger.warn('refused a line from the editor', { error: oversizeMessage(max) });
        this.error(oversizeMessage(max));
      },
    });
    this.input = input;
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
  }

  private readonly onData = (chunk: Buffer | string) => this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => this.lines.end();

  /**
   * The editor actions the companion uses: diffs, plus the declared
   * capabilities, each a request to the script.
   */
  editorActions(declared: readonly string[]): EditorActions {
    return editorWithCapabilities(
      {
        showDiff: async (diff, words) => {
          await this.request('showDiff', {
            diffId: diff.id,
            filePath: diff.filePath,
            newContent: diff.newContent,
            originalContent: diff.originalContent ?? null,
            agent: diff.agent,
            ...(words && { words }),
            ...(diff.kept && { kept: true }),
          });
        },
        diffText: async (diff) => (await this.request('diffText', { diffId: diff.id })).text ?? undefined,
        closeDiff: async (diff, reason, message) => {
          await this.request('closeDiff', { diffId: diff.id, reason, ...(message !== undefined && { message }) });
        },
      },
      {
        openFile: async (params) => {
          await this.request('openFile', params);
          // After its answer: a position the end sent before the move has come in by then (one ordered stream) and cannot undo it.
          this.intake?.expectMove();
        },
        getOpenEditors: () => this.request('getOpenEditors', {}),
        // Once the cursor moved on from a selection none is left (positionIntake.ts), whatever Visual marks the editor keeps.
        getSelection: async () => (this.intake?.noSelection ? { selection: null } : this.request('getSelection', {})),
        // An end that declares diagnosticItems hands its editor's lists over unshaped: the host shapes them, and keeps an ask for no file to the workspace.
        getDiagnostics: declared.includes('diagnosticItems')
          ? async (params) => diagnosticsFromItems((await this.request('diagnosticItems', {})).items, params.path, this.companion?.context.getRoots())
          : (params) => this.request('getDiagnostics', params),
        checkDocumentDirty: (params) => this.request('checkDocumentDirty', params),
        saveDocument: (params) => this.request('saveDocument', params),
        closeFile: async (params) => {
          await this.request('closeFile', params);
        },
        reload: async (params) => {
          await this.request('reload', params);
        },
      },
      declared,
    );
  }

  /** Starts applying the script's events to `companion` and tells the script how to reach it. */
  attach(companion: Companion): void {
    this.companion = companion;
    this.intake = new PositionIntake(companion, {
      readSelectedText: async (maxChars) => (await this.request('selectedText', { maxChars })).text,
      onReadError: (err) => this.error(`could not read the selected text: ${describeError(err)}`),
    });
    const containerHint = companion.containerHint;
    this.send({
      type: 'ready',
      port: companion.port,
      discoveryFile: companion.discoveryFilePath ?? '',
      workspacePath: companion.workspacePath,
      // In a container it holds REMOTE_CONTAINERS=1 (server/terminalEnv.ts): gemini there dials loopback, where this host listens.
      env: { ...companion.terminalEnv },
      capabilities: [...companion.capabilities],
      version: COMPANION_VERSION,
      ...(containerHint ? { containerHint, containerSaid: containerTerminalWords(companion.ideInfo.displayName) } : {}),
      ...(companion.socketPath ? { socketPath: companion.socketPath } : {}),
      // From the script node runs: this host's bundle, or the CLI's bin for `ide-companion bridge`.
      acp: acpLauncher(process.argv[1]),
      agents: companion.agents.map((a) => AGENT_DISPLAY_NAMES[a]),
      words: hostGoneWords(companion.ideInfo.name),
      health: this.health(),
      ...this.sessionsWords([]),
    });
    let agents: string[] = [];
    companion.onDidChangeSessions((s) => {
      const before = agents;
      agents = s.map((session) => AGENT_DISPLAY_NAMES[session.agent]);
      this.send({ type: 'sessions', count: s.length, agents, said: sessionChangeWords(before, agents), health: this.health(s), ...this.sessionsWords(s) });
    });
    for (const event of this.early.splice(0)) this.apply(event);
  }

  /** Who is served and connected, as the end shows it (sessionsWords): the agents the sessions belong to, never a guess. */
  private sessionsWords(sessions: readonly SessionInfo[]): { summary: string; label: string } {
    return sessionsWords(
      servedAgentNames(this.companion!.agents),
      sessions.map((session) => AGENT_DISPLAY_NAMES[session.agent]),
      sessions.map((session) => AGENT_SHORT_NAMES[session.agent]),
    );
  }

  /** The shared health report (server/healthLines.ts) as lines, made now. */
  private health(sessions = this.companion!.sessionList): string[] {
    const companion = this.companion!;
    return healthLines(
      healthItems({
        ide: companion.ideInfo.name,
        displayName: companion.ideInfo.displayName,
        pid: process.pid,
        port: companion.port,
        idePid: companion.idePid,
        workspacePath: companion.workspacePath,
        sessions: sessions.map((session) => AGENT_DISPLAY_NAMES[session.agent]),
        agents: companion.agents.map((a) => AGENT_DISPLAY_NAMES[a]),
        ...(companion.discoveryFilePath && { discoveryFile: companion.discoveryFilePath }),
        ...(companion.socketPath && { socketPath: companion.socketPath }),
        ...(companion.containerHint && { containerHint: companion.containerHint }),
        faces: companion.faceHealth,
      }),
    );
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
    this.intake?.dispose();
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
      if (type === 'health') return this.companion ? this.send({ type: 'health', health: this.health() }) : this.error('the companion is not ready');
      const event = parseEditorEvent(json);
      if (this.companion) return this.apply(event);
      if (this.early.length >= MAX_EARLY_EVENTS) return this.error('too many events before ready');
      this.early.push(event);
    } catch (err) {
      this.error(describeError(err));
    }
  }

  private receiveHello(json: unknown): void {
    if (this.helloSeen) return this.error('hello was already received');
    const hello = parse(HelloSchema, json, 'hello');
    this.helloSeen = true;
    this.resolveHello(hello);
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

  private apply(event: EditorEvent): void {
    try {
      // An end may send its folders as it names them (Vim: its cwds, links and trailing slashes included): real paths here, as hello's.
      if (event.type === 'roots') event = { ...event, roots: event.roots.map(realPathOr) };
      const applied = this.intake!.apply(event);
      if (!applied && 'diffId' in event) this.error(`no pending diff ${event.diffId}`);
      if (!applied && event.type === 'mention') this.error(UNHEARD_MENTION);
    } catch (err) {
      this.error(describeError(err));
    }
  }
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function parse<T extends z.ZodMiniType>(schema: T, json: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new EditorEventError(`invalid ${what}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
