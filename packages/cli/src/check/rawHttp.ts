/**
 * Hand-made HTTP requests, for what an MCP client will not send: no token, a
 * foreign Host or Origin, broken bodies, other interfaces. node:http because
 * fetch may not set Host.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { LOOPBACK_HOST, MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import { CHECK_PROBE_HEADER, checkProbeProof } from '@ide-companion/server/http/checkProbe';

export interface RawRequest {
  method: string;
  /** On 127.0.0.1, at /mcp; the Host header names 127.0.0.1 unless `headers` says otherwise. */
  port: number;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Resolve once the status line and headers are in, then drop the connection (for SSE streams). */
  headersOnly?: boolean;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as JSON; for an SSE body, the first `data:` line's JSON. */
  json: unknown;
}

/** The proof every hand-made request of this run carries (checkProbe.ts): set once the target's token is known. */
let probeHeaders: Record<string, string> = {};

/** Marks this run's hand-made requests as check's, for a companion that holds `token`: its log then tells them from an attack. */
export function markProbes(token: string): void {
  probeHeaders = { [CHECK_PROBE_HEADER]: checkProbeProof(token) };
}

export function rawRequest(req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: `${LOOPBACK_HOST}:${req.port}`, ...probeHeaders, ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    const request = http.request({ host: LOOPBACK_HOST, port: req.port, method: req.method, path: MCP_ENDPOINT_PATH, headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      if (req.headersOnly) {
        clearTimeout(timer);
        resolve({ status, headers: res.headers, json: undefined });
        res.destroy();
        request.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status, headers: res.headers, json: parseBody(Buffer.concat(chunks).toString('utf8'), res.headers['content-type']) });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(req.body);
  });
}

function parseBody(text: string, contentType: string | undefined): unknown {
  try {
    if (contentType?.includes('text/event-stream')) {
      const data = text.split(/\r?\n/).find((line) => line.startsWith('data:'));
      return data ? JSON.parse(data.slice(5).trim()) : undefined;
    }
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a TCP connection to address:port succeeds within `timeoutMs`. */
export function canConnect(address: string, port: number, timeoutMs: number): Promise<{ connected: boolean; detail: string }> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    const done = (connected: boolean, detail: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ connected, detail });
    };
    const timer = setTimeout(() => done(false, 'timed out'), timeoutMs);
    socket.once('connect', () => done(true, 'connected'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(false, err.code ?? err.message));
  });
}

/** `(HTTP 401)` style detail of a JSON-RPC error body, for reasons. */
export function describeRawResponse(res: RawResponse): string {
  const error = (res.json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const message = typeof error?.message === 'string' ? `: ${error.message.slice(0, 80)}` : '';
  return `HTTP ${res.status}${message}`;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return (err as NodeJS.ErrnoException).code ?? err.message;
  return String(err);
}
