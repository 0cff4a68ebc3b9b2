/**
 * The relay: MCP on stdio to the CLI that started it, Streamable HTTP to one
 * companion over its Unix socket (or loopback TCP), each message translated
 * by the path map on the way. A transparent pump: the CLI's initialize reaches
 * the companion and its answer comes back; the companion's GET stream
 * (context, diff outcomes) comes out on stdout. Stdin closed: the session is
 * ended (DELETE) and the relay exits 0. The companion gone: the relay exits 1,
 * so the CLI sees its IDE connection close.
 *
 * Stdin is read line by line here (LineReader, at most MAX_MESSAGE_BYTES a
 * line), not through the SDK's ReadBuffer: that one caps a message at 10 MiB
 * (a 32 MiB openDiff would be refused) and copies the whole buffer at every chunk. A large message (a whole file in openDiff, in
 * ide/diffAccepted) goes through as the bytes it came in: its method and id
 * are read from its outline (jsonOutline.ts: its structure, the strings
 * skipped), and its path, with a map, rewritten where it stands (inPlace.ts).
 * A message whose outline is not certain (an escaped key, a key twice) is
 * parsed whole, so the relay reads what the companion will.
 */
import { HttpClientTransport } from '@ide-companion/client/httpTransport';
import { LineReader, LOOPBACK_HOST, MAX_MESSAGE_BYTES, MCP_ENDPOINT_PATH, oversizeMessage } from '@ide-companion/protocol';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MessageTranslator, type FromCli, type RpcMessage } from './translate.js';
import { ResilientUpstream, UNREACHABLE } from './resilientUpstream.js';
import type { HttpClientTransportOptions } from '@ide-companion/client/httpTransport';
import type { PathMap } from './pathMap.js';
import { outline, stringAt, type Outline } from './jsonOutline.js';
import { baseSlot, cliFileOf, isOpenDiff, mayHoldBaseKey, readBase, withBase } from './remoteBase.js';
import type { RemoteBase } from '@ide-companion/protocol';
import { checkSocketToDial, dialRefusal } from '@ide-companion/shared/privateSocket';

export type RelayTarget = { socketPath: string } | { port: number };

export interface RelayOptions {
  target: RelayTarget;
  /** The companion's bearer token; none for a workspace socket (the stable address), whose companion adds its own. */
  token: string | undefined;
  /** Keep the CLI's session when the companion goes away, and go on with the next one at the same socket (resilientUpstream.ts). */
  reconnect?: boolean;
  map: PathMap;
  /**
   * The CLI's files are not the editor's (an SSH remote's own checkout): each openDiff carries the file as it is
   * here, read by the relay, as the review's base (remoteBase.ts).
   */
  remoteFiles?: boolean;
  /** One line per event worth knowing; never a token or a file's content. */
  log: (line: string) => void;
  /** Says why a dial to the socket was refused (shared/privateSocket.ts); once per reason is the caller's. */
  refused?: (reason: string) => void;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** How long the DELETE that ends the session may take before the relay exits anyway. */
const SESSION_END_TIMEOUT_MS = 1_000;
const NEWLINE = Buffer.from('\n');
/** Larger lines are read from their outline (jsonOutline.ts), not parsed, when it is certain. */
const LARGE_BYTES = 64 * 1024;

/** The method and id of a large message with its outline; undefined when it must be parsed whole. */
function peek(line: Buffer): { message: RpcMessage; shape: Outline } | undefined {
  const shape = outline(line);
  const root = shape?.get('');
  const method = root && stringAt(line, root.get('method'));
  if (method === undefined || method === 'initialize') return undefined;
  const idSpan = root!.get('id');
  let id: unknown;
  if (idSpan) {
    id = JSON.parse(line.toString('utf8', idSpan.start, idSpan.end));
    if (typeof id !== 'string' && typeof id !== 'number' && id !== null) return undefined;
  }
  return { message: { jsonrpc: '2.0', method, ...(idSpan ? { id: id as string | number | null } : {}) }, shape: shape! };
}

/** The check before a dial to the socket: undefined to dial, else the error the dial fails with (nothing dialled). */
function beforeDial(socketPath: string, refused: ((reason: string) => void) | undefined): Error | undefined {
  const check = checkSocketToDial(socketPath);
  if (check.ok) return undefined;
  if (!check.absent) refused?.(check.reason);
  return dialRefusal(socketPath, check);
}

function describe(target: RelayTarget): string {
  return 'socketPath' in target ? target.socketPath : `${LOOPBACK_HOST}:${target.port}`;
}

/** Runs until stdin closes (resolves 0) or the companion is gone (resolves 1). */
export function runRelay(options: RelayOptions): Promise<number> {
  const { target, map, log } = options;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const translator = new MessageTranslator(map, log);
  const url = 'socketPath' in target ? new URL(`http://localhost${MCP_ENDPOINT_PATH}`) : new URL(`http://${LOOPBACK_HOST}:${target.port}${MCP_ENDPOINT_PATH}`);
  const transportOptions: HttpClientTransportOptions = {
    headers: options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` },
    ...('socketPath' in target ? { socketPath: target.socketPath } : {}),
    passThrough: (text: string) => passOn(text),
    // Every dial, not only the first: the GET stream's and each reconnect's go by path too, and what is at the
    // path may have changed since. Refused, the dial is not made (the companion counts as not there).
    ...('socketPath' in target ? { beforeDial: () => beforeDial(target.socketPath, options.refused) } : {}),
    // A dropped GET stream is reopened once at once; a companion that is gone ends the relay.
    reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
  };
  const upstream = options.reconnect
    ? new ResilientUpstream(url, transportOptions, {
        // The project the user runs in, by its path here; the socket after it.
        where: map.roots.length > 0 ? `${map.roots.map((r) => r.cli).join(', ')} (through ${describe(target)})` : describe(target),
        log,
      })
    : new HttpClientTransport(url, transportOptions);
  /** Initialize requests in flight, each with what releases the messages waiting for its session. */
  const initializing = new Map<string | number, () => void>();
  /** Settles when no initialize is in flight: a message sent meanwhile would reach the companion without a session. */
  let sessionReady: Promise<void> = Promise.resolve();
  /** Settles once the last message forwarded was sent: one waiting for its base (a file read) holds the ones after it. */
  let sent: Promise<void> = Promise.resolve();
  let finished = false;
  /** Takes a message's text from the companion as it is, when nothing in it needs reading (set below). */
  let passOn: (text: string) => boolean = () => false;

  return new Promise<number>((resolve) => {
    const finish = async (code: number, reason: string) => {
      if (finished) return;
      finished = true;
      log(reason);
      stdin.removeListener('data', onData);
      if (code === 0) {
        // The CLI went away: end the session so the companion closes its diffs now, not after its grace.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          upstream.terminateSession().catch(() => undefined),
          new Promise<void>((r) => {
            timer = setTimeout(r, SESSION_END_TIMEOUT_MS);
            timer.unref();
          }),
        ]);
        clearTimeout(timer);
      }
      await upstream.close().catch(() => undefined);
      resolve(code);
    };

    /** One line to the CLI; `text`, when given, is the message as it came (no second serialization of a large one). */
    function write(message: RpcMessage | undefined, text?: string | Buffer): void {
      if (finished) return;
      // One write with its newline: written apart, the CLI's reader may wake for a line without its end and again for
      // the end (the relay's isolated event 1.74x direct at load 4, two writes to the pipe per message).
      if (typeof text === 'object') {
        stdout.write(Buffer.concat([text, NEWLINE]));
        return;
      }
      stdout.write(`${text ?? JSON.stringify(message)}\n`);
    }

    /** A message from the companion (`text`: as it came), translated for the CLI. */
    const receive = (m: RpcMessage, text: string | undefined) => {
      const release = m.id !== undefined && m.id !== null ? initializing.get(m.id) : undefined;
      if (release) {
        const version = m.result?.['protocolVersion'];
        if (typeof version === 'string') upstream.setProtocolVersion(version);
        initializing.delete(m.id!);
        release();
      }
      const out = translator.toCli(m);
      if (out) write(out, out === m ? text : undefined);
    };

    // The relay reads what the companion sends itself (the CLI validates it): without a map and once
    // the session exists, not at all, written on as it came; else parsed once, and written on as it
    // came unless a path in it changed. What is not one JSON object is left to the transport to report.
    passOn = (text) => {
      if (map.identity && initializing.size === 0) {
        write(undefined, text);
        return true;
      }
      if (text.length > LARGE_BYTES && initializing.size === 0) {
        // A whole file in ide/diffAccepted: its path rewritten where it stands.
        const bytes = translator.toCliBytes(Buffer.from(text, 'utf8'));
        if (bytes === 'drop') return true;
        if (bytes) {
          write(undefined, bytes);
          return true;
        }
      }
      let m: unknown;
      try {
        m = JSON.parse(text);
      } catch {
        return false;
      }
      if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
      receive(m as RpcMessage, text);
      return true;
    };
    upstream.onmessage = (message) => receive(message as RpcMessage, undefined);
    upstream.onerror = (err) => {
      log(`companion: ${err.message}`);
      if (UNREACHABLE.test(err.message)) void finish(1, `the companion at ${describe(target)} is gone`);
    };

    /** `message` to the companion, as `body` (its text as it came, or rewritten in place). */
    const send = (message: RpcMessage, body: string | Buffer) =>
      upstream.sendText(message as JSONRPCMessage, body).catch((err: Error) => {
        if (message.id !== undefined && message.id !== null) initializing.get(message.id)?.();
        // A request must not wait forever: answer it with why it failed.
        if (message.method !== undefined && message.id !== undefined && message.id !== null) {
          write({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `ide-companion connect: ${err.message}` } });
        }
        if (UNREACHABLE.test(err.message)) void finish(1, `the companion at ${describe(target)} is gone (${err.message})`);
      });

    /**
     * A message from the CLI (`text`: as it came), translated (or answered here), then sent. `base`: an openDiff of
     * `base.file` (the CLI's path) whose body, once that file is read here, is `base.body(read)` (--remote-files).
     */
    const forward = (message: RpcMessage, text: string | Buffer, translated: FromCli, base?: { file: string; body: (read: RemoteBase) => string | Buffer }) => {
      if ('answer' in translated) return write(translated.answer);
      const body = translated.bytes ?? (translated.forward === message ? text : JSON.stringify(translated.forward));
      if (message.method === 'initialize' && message.id !== undefined && message.id !== null) {
        const id = message.id;
        sessionReady = new Promise<void>((resolve) => initializing.set(id, resolve));
        void send(message, body);
        return;
      }
      // After the session's initialize answer, in the order the CLI sent them.
      const ready = sessionReady;
      // Inside the CLI's roots of the map, when there is one (the relay knows no other workspace).
      const prepared = base ? readBase(base.file, undefined, map.identity ? undefined : map.roots.map((r) => r.cli)).then(base.body) : body;
      const before = sent;
      sent = Promise.all([before, ready, prepared]).then(([, , b]) => void send(message, b));
    };

    const onLine = (line: Buffer) => {
      if (line.length > LARGE_BYTES) {
        // A whole file in openDiff: read from its outline, its path rewritten where it stands.
        const peeked = peek(line);
        const params = peeked?.shape.get('params');
        const openDiff = peeked !== undefined && isOpenDiff({ ...peeked.message, params: { name: stringAt(line, params?.get('name')) } });
        // An openDiff's own _meta that may hold our key is read whole, so that it goes (remoteBase.ts); so is any
        // _meta when the base is to be added beside it.
        const meta = openDiff ? params?.get('_meta') : undefined;
        const parseWhole = meta !== undefined && (options.remoteFiles === true || mayHoldBaseKey(line, meta));
        const translated = peeked && !parseWhole ? translator.fromCliBytes(line, peeked.message, peeked.shape) : undefined;
        if (translated) {
          const file = openDiff && options.remoteFiles ? stringAt(line, peeked!.shape.get('params.arguments')?.get('filePath')) : undefined;
          if (file === undefined || !('forward' in translated) || !file.startsWith('/')) return forward(peeked!.message, line, translated);
          const slot = baseSlot(translated.bytes ?? line, peeked!.shape);
          if (slot) return forward(peeked!.message, line, translated, { file, body: slot });
        }
      }
      const text = line.toString('utf8');
      if (text.trim() === '') return;
      let message: RpcMessage;
      try {
        message = JSON.parse(text) as RpcMessage;
      } catch (err) {
        write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${(err as Error).message}` } });
        return;
      }
      if (message === null || typeof message !== 'object' || Array.isArray(message)) {
        write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: one JSON-RPC object per line' } });
        return;
      }
      if (!isOpenDiff(message)) return forward(message, text, translator.fromCli(message));
      // The CLI's own value under our key goes, whatever else happens (remoteBase.ts).
      const stripped = withBase(message, undefined);
      const translated = translator.fromCli(stripped);
      const file = options.remoteFiles ? cliFileOf(message) : undefined;
      if (file === undefined || !('forward' in translated)) return forward(message, text, translated);
      const sending = translated.forward;
      forward(message, text, translated, { file, body: (read) => JSON.stringify(withBase(sending, read)) });
    };

    // Lines split as bytes, each joined once (a large openDiff arrives in many chunks), each at most
    // MAX_MESSAGE_BYTES: a longer one is answered with an error, and the relay reads on.
    const lines = new LineReader({
      maxBytes: MAX_MESSAGE_BYTES,
      onLine,
      onOversize: (max) => {
        log(`refused a message from the CLI: ${oversizeMessage(max)}`);
        write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${oversizeMessage(max)}` } });
      },
    });
    const onData = (chunk: Buffer) => lines.push(chunk);
    stdin.on('data', onData);
    stdin.once('end', () => void finish(0, 'the CLI closed stdin'));
    stdin.once('error', (err: Error) => void finish(0, `stdin: ${err.message}`));
    void upstream.start();
    log(
      `relaying to ${describe(target)}${map.identity ? '' : ` (paths: ${map.roots.map((r) => `${r.host}=${r.cli}`).join(', ')})`}${options.remoteFiles ? '; diff bases read here' : ''}`,
    );
  });
}
