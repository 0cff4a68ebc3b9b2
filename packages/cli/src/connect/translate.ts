/**
 * The relay's path translation, message by message: the places each message
 * carries a path are declared once, beside its definition in
 * `@ide-companion/protocol` (`paths` of each tool and notification), and only
 * those are rewritten. A path the CLI sends outside every mapped root is
 * refused with an answer saying so; one the editor sends outside them leaves
 * the message (an open file, a diagnostic) or stops it, never passes through.
 */
import {
  ActiveFileNotification,
  COMPANION_NOTIFICATIONS,
  COMPANION_TOOLS,
  formatActiveFile,
  parseActiveFile,
  type PathLocation,
  type ToolPaths,
} from '@ide-companion/protocol';
import { rewriteInPlace } from './inPlace.js';
import { outline, stringAt, type Outline } from './jsonOutline.js';
import type { PathMap } from './pathMap.js';

type Json = unknown;
type JsonObject = Record<string, unknown>;
/** A JSON-RPC message as read from either side (its shape is the other end's to check: the relay reads only what it translates). */
export interface RpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: JsonObject;
  result?: JsonObject;
  error?: unknown;
}

interface TextBlock {
  type: 'text';
  text: string;
}
const isTextBlock = (b: unknown): b is TextBlock =>
  typeof b === 'object' && b !== null && (b as TextBlock).type === 'text' && typeof (b as TextBlock).text === 'string';

type Mapper = (p: string) => string | undefined;

/** The value with the path at `location` rewritten; undefined when that path is outside (array elements holding one are left out). */
export function rewriteAt(value: Json, location: PathLocation, map: Mapper, depth = 0): { value: Json } | undefined {
  if (depth === location.length) {
    if (typeof value !== 'string') return { value };
    const mapped = map(value);
    return mapped === undefined ? undefined : { value: mapped };
  }
  // The location read by index (`depth`): no copy of its rest at every step, for every array element.
  const key = location[depth]!;
  if (key === '*') {
    if (!Array.isArray(value)) return { value };
    const kept: Json[] = [];
    for (const element of value) {
      const r = rewriteAt(element, location, map, depth + 1);
      if (r) kept.push(r.value);
    }
    return { value: kept };
  }
  if (value === null || typeof value !== 'object' || !(key in value)) return { value };
  const r = rewriteAt((value as Record<string, Json>)[key], location, map, depth + 1);
  return r && { value: { ...(value as Record<string, Json>), [key]: r.value } };
}

function rewriteAll(value: Json, locations: readonly PathLocation[], map: Mapper): { value: Json } | undefined {
  let current: { value: Json } | undefined = { value };
  for (const location of locations) {
    current = rewriteAt(current.value, location, map);
    if (!current) return undefined;
  }
  return current;
}

const toolPaths = new Map<string, ToolPaths>(COMPANION_TOOLS.map((t) => [t.name, t.paths]));
const notificationPaths = new Map<string, readonly PathLocation[]>([...COMPANION_NOTIFICATIONS, ActiveFileNotification].map((n) => [n.method, n.paths]));

function toolError(id: RpcMessage['id'], text: string): RpcMessage {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } };
}

/** Forward `forward` (as `bytes` when given: the message rewritten in place), or answer the CLI here. */
export type FromCli = { forward: RpcMessage; bytes?: Buffer } | { answer: RpcMessage };

/** The keys of locations that are one key deep (`[['filePath']]`); undefined when one goes deeper. */
function singleKeys(locations: readonly PathLocation[]): string[] | undefined {
  return locations.every((l) => l.length === 1 && l[0] !== '*') ? locations.map((l) => l[0]!) : undefined;
}

/** Translates one session's messages both ways; remembers which tool each pending call is for. */
export class MessageTranslator {
  /** Request id -> the tool whose answer carries paths. */
  private readonly pending = new Map<string | number, ToolPaths>();

  constructor(
    private readonly map: PathMap,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** A message from the CLI: forwarded with the editor's paths, or answered here when a path is outside the map. */
  fromCli(message: RpcMessage): FromCli {
    if (message.method !== 'tools/call' || this.map.identity) return { forward: message };
    const name = message.params?.['name'];
    const paths = typeof name === 'string' ? toolPaths.get(name) : undefined;
    if (!paths) return { forward: message };
    let args: Json = message.params?.['arguments'];
    for (const location of paths.arguments) {
      let outside: string | undefined;
      const r = rewriteAt(args, location, (p) => {
        const host = this.map.toHost(p);
        if (host === undefined) outside = p;
        return host;
      });
      if (!r) return { answer: this.refusal(name as string, message.id, outside) };
      args = r.value;
    }
    this.expectAnswer(message.id, paths);
    return { forward: { ...message, params: { ...message.params, arguments: args } } };
  }

  /**
   * A large message from the CLI, as the bytes it came in (`peeked`: its
   * method and id, `shape`: its outline): its paths rewritten in place, or
   * answered here; undefined when it must be parsed whole (fromCli).
   */
  fromCliBytes(bytes: Buffer, peeked: RpcMessage, shape: Outline): FromCli | undefined {
    if (this.map.identity || peeked.method !== 'tools/call') return { forward: peeked, bytes };
    const name = stringAt(bytes, shape.get('params')?.get('name'));
    const paths = name === undefined ? undefined : toolPaths.get(name);
    if (!paths) return name === undefined ? undefined : { forward: peeked, bytes };
    const keys = singleKeys(paths.arguments);
    const r = keys && rewriteInPlace(bytes, shape.get('params.arguments'), keys, (p) => this.map.toHost(p));
    if (!r) return undefined;
    if ('outside' in r) return { answer: this.refusal(name!, peeked.id, r.outside) };
    this.expectAnswer(peeked.id, paths);
    return { forward: peeked, bytes: r.bytes };
  }

  /**
   * A large message from the companion, as bytes: a notification with its
   * paths rewritten in place, or 'drop' when one is outside; undefined when it
   * must be parsed whole (toCli).
   */
  toCliBytes(bytes: Buffer): Buffer | 'drop' | undefined {
    if (this.map.identity) return bytes;
    const shape = outline(bytes);
    const method = shape && stringAt(bytes, shape.get('')?.get('method'));
    if (method === undefined) return undefined;
    const paths = notificationPaths.get(method);
    if (!paths) return bytes;
    const keys = singleKeys(paths);
    const r = keys && rewriteInPlace(bytes, shape!.get('params'), keys, (p) => this.map.toCli(p));
    if (!r) return undefined;
    if ('outside' in r) {
      this.log(`dropped ${method}: its path is outside the mapped folders`);
      return 'drop';
    }
    return r.bytes;
  }

  private refusal(name: string, id: RpcMessage['id'], outside: string | undefined): RpcMessage {
    this.log(`refused ${name}: a path outside the mapped folders`);
    const text = `${name} refused ${outside}: it is outside the folders this CLI shares with the editor (${this.map.describe('cli')}); ide-companion connect --map translates only those.`;
    return toolError(id, text);
  }

  private expectAnswer(id: RpcMessage['id'], paths: ToolPaths): void {
    if (id !== undefined && id !== null && (paths.result === 'activeFileText' || paths.result.length > 0)) this.pending.set(id, paths);
  }

  /** A message from the companion, with the CLI's paths; undefined when it must not reach the CLI. */
  toCli(message: RpcMessage): RpcMessage | undefined {
    if (this.map.identity) return message;
    const toCli: Mapper = (p) => this.map.toCli(p);
    if (message.method !== undefined) {
      const paths = notificationPaths.get(message.method);
      if (!paths || message.params === undefined) return message;
      const r = rewriteAll(message.params, paths, toCli);
      if (!r) {
        this.log(`dropped ${message.method}: its path is outside the mapped folders`);
        return undefined;
      }
      return { ...message, params: r.value as JsonObject };
    }
    if (message.id === undefined || message.id === null) return message;
    const paths = this.pending.get(message.id);
    if (!paths) return message;
    this.pending.delete(message.id);
    const result = message.result;
    const content = result?.['content'];
    if (!result || result['isError'] || !Array.isArray(content)) return message;
    const block: unknown = content[0];
    if (!isTextBlock(block)) return message;
    const text = this.answerText(block.text, paths);
    if (text === undefined) {
      return toolError(message.id, `The editor answered with a path outside the folders this CLI shares with it (${this.map.describe('host')}).`);
    }
    return { ...message, result: { ...result, content: [{ ...block, text }, ...content.slice(1)] } };
  }

  /** A tool's answer text with the CLI's paths; undefined when its one path is outside. */
  private answerText(text: string, paths: ToolPaths): string | undefined {
    const toCli: Mapper = (p) => this.map.toCli(p);
    if (paths.result === 'activeFileText') {
      const active = parseActiveFile(text);
      if (!active) return text;
      const filePath = toCli(active.filePath);
      return filePath === undefined ? undefined : formatActiveFile({ ...active, filePath });
    }
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const r = rewriteAll(json, paths.result, toCli);
    return r && JSON.stringify(r.value);
  }
}
