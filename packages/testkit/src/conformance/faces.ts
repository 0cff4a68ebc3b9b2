/**
 * The three agents' faces of an end's companion, reached as each agent
 * reaches them: Gemini CLI through the real client library (packages/client's
 * CompanionClient: discovery file, handshake, context store, diffs), Qwen Code
 * through its lock file's token (a real MCP SDK client), Claude Code through
 * its lock file and WebSocket.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDiscoveryFileName, type IdeContext } from '@ide-companion/protocol';
import { connectClaudeClient, type ClaudeTestClient } from '../claudeClient.js';
import { connectRecordingClient, type RecordingClient } from '../mcpClient.js';
import { STRAY_IDE_ENV } from '../geminiHome.js';
import { waitFor } from '../wait.js';
import type { EndSession } from './driver.js';

/** How long a face waits for what the end should do at once (the machine is shared and slow at times). */
export const FACE_TIMEOUT_MS = 20_000;

export type DiffOutcome = { status: 'accepted'; content: string } | { status: 'rejected' };

/** The part of packages/client's CompanionClient the suite uses. */
interface CompanionClientLike {
  connect(): Promise<boolean>;
  readonly status: { status: string; details?: string };
  readonly tools: string[];
  readonly context: { get(): IdeContext | undefined };
  openDiff(filePath: string, newContent: string): Promise<DiffOutcome>;
  callTool(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<{ content: Array<{ type: string; text?: string }>; isError?: boolean }>;
  stop(): Promise<void>;
}

// packages/client's own tests use testkit, so testkit cannot reference it at build time: it is loaded when a face is dialed.
const CLIENT_PACKAGE = '@ide-companion/client';

export interface GeminiFace {
  client: CompanionClientLike;
  /** Waits for a context for which `probe` returns a value; the error shows the last context. */
  waitForContext<T>(probe: (context: IdeContext) => T | undefined | false, what: string): Promise<T>;
  close(): Promise<void>;
}

/** Gemini CLI's side: the real client library, finding the end as the CLI in its terminal would (TMPDIR, the IDE's PID, the cwd). */
export async function connectGemini(session: EndSession): Promise<GeminiFace> {
  const { CompanionClient } = (await import(CLIENT_PACKAGE)) as { CompanionClient: new (options: object) => CompanionClientLike };
  const discovery = await session.discovery();
  const pid = parseDiscoveryFileName(path.basename(discovery.path))?.pid ?? 0;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of STRAY_IDE_ENV) delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith('GEMINI_CLI_IDE_')) delete env[name];
  const client = new CompanionClient({
    cwd: session.workspace,
    tmpdir: session.tmpdir,
    env: { ...env, REMOTE_CONTAINERS: '1' },
    ideProcess: { pid, command: 'conformance', source: 'env', chain: [] },
    wellKnownPorts: false,
    reconnect: false,
    heartbeatMs: 0,
  });
  if (!(await client.connect())) throw new Error(`Gemini's client library did not connect: ${client.status.details ?? client.status.status}`);
  return {
    client,
    waitForContext: (probe, what) =>
      waitFor(
        () => {
          const context = client.context.get();
          return context ? probe(context) : undefined;
        },
        what,
        FACE_TIMEOUT_MS,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last context: ${JSON.stringify(client.context.get())}`);
      }),
    close: () => client.stop(),
  };
}

/** An agent's lock file (`DIR/ide/PORT.lock`) for the end's port, once written. */
export async function readLockFile(dir: string, port: number): Promise<{ authToken: string; [key: string]: unknown }> {
  const file = path.join(dir, 'ide', `${port}.lock`);
  await waitFor(() => fs.existsSync(file), `the lock file ${file}`, FACE_TIMEOUT_MS);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { authToken: string };
}

/** Qwen Code's side: a real MCP SDK client with the token of its lock file. */
export async function connectQwen(session: EndSession): Promise<RecordingClient> {
  const { content } = await session.discovery();
  const lock = await readLockFile(session.qwenHome, content.port);
  return connectRecordingClient({ port: content.port, token: lock.authToken });
}

/** Claude Code's side: its WebSocket on the end's port with the token of its lock file, initialized as the CLI does. */
export async function connectClaude(session: EndSession): Promise<ClaudeTestClient> {
  const { content } = await session.discovery();
  const lock = await readLockFile(session.claudeConfigDir, content.port);
  return connectClaudeClient({ port: content.port, token: lock.authToken });
}

/** The text of a tool result's first text block. */
export function resultText(result: { content?: Array<{ type: string; text?: string }> }): string {
  return result.content?.find((b) => b.type === 'text')?.text ?? '';
}
