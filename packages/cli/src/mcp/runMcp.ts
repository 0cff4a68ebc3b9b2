/**
 * `ide-companion mcp`: the editor tools over MCP on stdio until the agent
 * closes stdin (or SIGTERM/SIGINT/SIGHUP). Stdout carries MCP messages only.
 * Also the entry of the one-file server the Gemini CLI extension ships.
 *
 * Stderr gets a few lines (connection changes), at most MAX_LOG_LINES: an
 * agent that pipes our stderr without reading it (Gemini CLI does, unless in
 * debug mode) would otherwise block us once the pipe is full.
 */
import * as path from 'node:path';
import { CompanionClient } from '@ide-companion/client/companionClient';
import { VERSION } from '@ide-companion/client/version';
import { EXIT, parseCommandArgs, UsageError, usageOf } from '@ide-companion/command/commandSpec';
import { printError } from '../runCommand.js';
import { MCP_COMMAND_SPEC } from './commandSpec.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './editorTools.js';
import { EditorToolsServer } from './editorToolsServer.js';
import { LineTransport } from './lineTransport.js';

export const mcpUsage = (): string => usageOf(MCP_COMMAND_SPEC);

const MAX_LOG_LINES = 200;
/** How long the first tools/list may wait for the first connection attempt, so it lists the editor's tools. */
const FIRST_ATTEMPT_WAIT_MS = 2_000;

function positiveMs(raw: unknown, option: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`--${option} must be a positive number of milliseconds, got ${JSON.stringify(raw)}`);
  return ms;
}

/** A bad option throws: runCommand prints it (cleaned) with the usage and exits 2. */
export async function runMcp(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(MCP_COMMAND_SPEC, argv);
  const callTimeoutMs = positiveMs(values['call-timeout'], 'call-timeout', DEFAULT_CALL_TIMEOUT_MS);
  const retryMs = positiveMs(values['retry'], 'retry', 2_000);
  const cwd = path.resolve(typeof values['cwd'] === 'string' ? values['cwd'] : process.cwd());
  let logged = 0;
  const log = (line: string) => {
    // Cleaned as every line we write: a line may name the editor or echo what the agent sent.
    if (logged++ < MAX_LOG_LINES) printError('mcp', line);
  };

  const client = new CompanionClient({
    cwd,
    env: process.env,
    // Reconnect by itself: an editor that starts, restarts or stops later changes the tool list.
    reconnect: { initialDelayMs: 250, maxDelayMs: retryMs },
    // Ours, not gemini's connection: a companion running in this very container is reached on loopback.
    dialLocalCompanion: true,
  });
  const tools = new EditorToolsServer(client, { cwd, version: VERSION, callTimeoutMs, log });
  client.start();
  await Promise.race([client.connect(), new Promise((r) => setTimeout(r, FIRST_ATTEMPT_WAIT_MS).unref())]);

  // Refusals are always logged: they count toward MAX_LOG_LINES like the rest.
  const transport = new LineTransport(process.stdin, process.stdout, log);
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  process.stdin.once('end', () => finish(EXIT.OK));
  process.stdin.once('close', () => finish(EXIT.OK));
  transport.onclose = () => finish(EXIT.OK);
  const onSignal = () => finish(EXIT.OK);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, onSignal);
  try {
    await tools.server.connect(transport);
  } catch (err) {
    printError('mcp', `could not start: ${(err as Error).message}`);
    await client.stop();
    return EXIT.ERROR;
  }
  const code = await finished;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(signal, onSignal);
  tools.close();
  // Ends our session with the companion (DELETE), so it stops counting us at once.
  await client.stop();
  await tools.server.close().catch(() => undefined);
  return code;
}
