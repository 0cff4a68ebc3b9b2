/**
 * An agent for `ide-companion mcp` tests: the real MCP SDK client spawning the
 * real bin over stdio (StdioClientTransport), counting tools/list_changed, and
 * a scripted JSON-lines editor (`ide-companion bridge`) to connect it to.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot, waitFor } from '@ide-companion/testkit';

export const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

/** The env of a process that must find only this test's companions. */
export function isolatedEnv(tmpdir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GEMINI_CLI_IDE_')) env[k] = v;
  return { ...env, TMPDIR: tmpdir, ...extra };
}

export interface McpAgent {
  client: Client;
  listChanged: number;
  stderr: () => string;
  pid: number;
  names(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startMcpAgent(options: { cwd: string; tmpdir: string; args?: string[] }): Promise<McpAgent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', ...(options.args ?? [])],
    cwd: options.cwd,
    env: isolatedEnv(options.tmpdir),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'test-agent', version: '1' });
  const agent: McpAgent = {
    client,
    listChanged: 0,
    stderr: () => stderr,
    pid: 0,
    names: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    agent.listChanged += 1;
  });
  await client.connect(transport);
  agent.pid = transport.pid ?? 0;
  return agent;
}

export const textOf = (r: CallToolResult): string => (r.content[0] as { text: string }).text;

/** A Vim- or Emacs-like script driving `ide-companion bridge` over JSON lines. */
export class ScriptedEditor {
  readonly fromHost: any[] = [];
  readonly host: ChildProcessWithoutNullStreams;
  readonly exited: Promise<void>;
  constructor(workspace: string, tmpdir: string, capabilities: string[], displayName = 'Scripted Editor') {
    this.host = spawn(process.execPath, [bin, 'bridge', '--name', 'scripted', '--display-name', displayName, '--workspace', workspace], {
      env: isolatedEnv(tmpdir),
    });
    this.exited = new Promise((resolve) => this.host.once('exit', () => resolve()));
    readline.createInterface({ input: this.host.stdout }).on('line', (l) => this.fromHost.push(JSON.parse(l)));
    this.send({ type: 'hello', protocol: 1, pid: process.pid, capabilities });
  }
  ready(): Promise<any> {
    return waitFor(() => this.fromHost.find((m) => m.type === 'ready'), 'the bridge to be ready', 20_000);
  }
  send(m: unknown): void {
    this.host.stdin.write(`${JSON.stringify(m)}\n`);
  }
  request(action: string, after = 0): Promise<any> {
    return waitFor(() => this.fromHost.find((m) => m.type === 'request' && m.action === action && m.id > after), `${action} request`, 20_000);
  }
  respond(request: any, answer: { result?: unknown; error?: string }): void {
    this.send({ type: 'response', id: request.id, ...answer });
  }
  async stop(): Promise<void> {
    if (this.host.exitCode === null && this.host.signalCode === null) {
      this.host.stdin.end();
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (this.host.exitCode === null && this.host.signalCode === null) this.host.kill('SIGKILL');
    }
  }
}
