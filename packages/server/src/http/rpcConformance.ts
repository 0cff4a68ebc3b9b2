/**
 * The JSON-RPC 2.0 and MCP answers the MCP SDK (1.32.2) gets wrong, given at
 * our edge before a message reaches it, on every face (docs/divergences.md,
 * docs/protocol.md "Errors"):
 * - `tools/call` without params, or with `arguments` that are no object: the
 *   SDK's schema check throws first and answers -32603 with a zod dump; MCP
 *   and JSON-RPC say -32602 Invalid params.
 * - an unknown tool: the SDK turns its own -32602 into an `isError` result;
 *   MCP's spec ("Error Handling", tools) answers it with JSON-RPC -32602.
 * - batches: an array is answered with an array (JSON-RPC 2.0), an empty one
 *   with -32600, and refused, one -32600 per message, where the negotiated
 *   MCP version has no batches (2025-06-18 dropped them).
 * No module here does I/O: the transports call it and send what it says.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { RpcErrorCode } from './jsonRpcError.js';

const { InvalidRequest, InvalidParams } = RpcErrorCode;

/** A JSON-RPC error to answer instead of handing the message on. */
export interface RpcFault {
  code: number;
  message: string;
}

export type RequestId = string | number;

/** A JSON-RPC error response. */
export function faultReply(id: RequestId | null, fault: RpcFault): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: fault } as unknown as JSONRPCMessage;
}

/** The id of something that may be a request, when it has a usable one; null otherwise (JSON-RPC 2.0 §5). */
export function idOf(message: unknown): RequestId | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

export const NOT_JSON_RPC: RpcFault = { code: InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message' };
export const EMPTY_BATCH: RpcFault = { code: InvalidRequest, message: 'Invalid Request: an empty batch (a JSON-RPC batch holds at least one message)' };

/** The first MCP version without JSON-RPC batches: this one and every later one refuse them. */
export const FIRST_VERSION_WITHOUT_BATCHES = '2025-06-18';

/** Whether a session that negotiated `version` takes batches (MCP versions are dates: they compare as strings). */
export function batchesAllowed(version: string | undefined): boolean {
  return version === undefined || version < FIRST_VERSION_WITHOUT_BATCHES;
}

/** One -32600 per message of a batch that is refused whole, each with the message's id: JSON-RPC 2.0 answers a batch with an array. */
export function refuseEach(batch: readonly unknown[], message: string): JSONRPCMessage[] {
  return batch.map((m) => faultReply(idOf(m), { code: InvalidRequest, message }));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A request the SDK would answer wrongly, answered here: `tools/call`'s
 * params checked as MCP declares them (`{name: string, arguments?: object}`),
 * then its name against the session's tools. undefined: hand it on.
 */
export function toolCallFault(request: JSONRPCRequest, toolExists: (name: string) => boolean): RpcFault | undefined {
  if (request.method !== 'tools/call') return undefined;
  const params: unknown = request.params;
  if (!isObject(params)) return { code: InvalidParams, message: 'Invalid params: tools/call needs params {"name": string, "arguments"?: object}' };
  if (typeof params['name'] !== 'string') return { code: InvalidParams, message: 'Invalid params: tools/call needs the tool name as a string in params.name' };
  const args = params['arguments'];
  if (args !== undefined && !isObject(args)) {
    return { code: InvalidParams, message: `Invalid params: tools/call arguments must be an object of named arguments, not ${describeType(args)}` };
  }
  if (!toolExists(params['name'])) return { code: InvalidParams, message: `Unknown tool: ${shownName(params['name'])}` };
  return undefined;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A client-given name (a tool's, a method's) fit to echo: short, its control characters escaped (never raw to a terminal). */
export function shownName(name: string): string {
  const short = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  return JSON.stringify(short).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Whether `server` has a tool called `name`. The SDK keeps its tools in a
 * field it does not export (`_registeredTools`, 1.x); should that change, the
 * answer is "yes" and the SDK answers as before (the tests of the unknown
 * tool then fail, saying so).
 */
export function toolLookup(server: () => McpServer | undefined): (name: string) => boolean {
  return (name) => {
    const tools = (server() as unknown as { _registeredTools?: unknown } | undefined)?._registeredTools;
    if (!isObject(tools)) return true;
    return Object.hasOwn(tools, name);
  };
}
