/**
 * The MCP server of `ide-companion mcp`: the editor tools of the companion
 * this folder's CLI would use, each call forwarded to the companion's tool of
 * the same name through a CompanionClient that reconnects by itself.
 *
 * What is listed:
 * - connected: the editor tools the companion offers (an editor without
 *   diagnostics has no getDiagnostics), so the list follows the editor;
 * - no companion: every editor tool, each call answering `isError` with why
 *   (one paragraph, the words `status` and `doctor` print). An agent that
 *   never saw the tools would not know to tell the user to start the editor.
 * Each change sends one `notifications/tools/list_changed` (debounced).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanToolText } from '@ide-companion/protocol';
import { toolError } from '@ide-companion/server/tools/toolDefinition';
import { withOurInstallHint } from '@ide-companion/client/discovery';
import { type CompanionClient } from '@ide-companion/client/companionClient';
import { DEFAULT_CALL_TIMEOUT_MS, EDITOR_TOOLS, MAX_RESULT_CHARS, type EditorToolName } from './editorTools.js';

export interface EditorToolsServerOptions {
  /** The folder whose companion is used (for the explanation). */
  cwd: string;
  version: string;
  /** Bound on one forwarded call (default DEFAULT_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number;
  /** Debug lines (connection changes); never tokens or file contents. */
  log?: (line: string) => void;
}

/**
 * What reaches the agent, and maybe its terminal: each text block without
 * control characters, in JSON text too (a file name or diagnostic message
 * carrying OSC 52 or CSI from the editor's side).
 */
function cleanResult(result: CallToolResult): CallToolResult {
  return { ...result, content: result.content.map((block) => (block.type === 'text' ? { ...block, text: cleanToolText(block.text) } : block)) };
}

export class EditorToolsServer {
  readonly server: McpServer;
  private readonly registered = new Map<EditorToolName, RegisteredTool>();
  private readonly unsubscribe: () => void;
  private lastListed = '';

  constructor(
    private readonly client: CompanionClient,
    private readonly options: EditorToolsServerOptions,
  ) {
    this.server = new McpServer(
      { name: 'ide-companion', version: options.version },
      {
        capabilities: { tools: { listChanged: true } },
        // Several tools enabled or disabled at once: one notification.
        debouncedNotificationMethods: ['notifications/tools/list_changed'],
        instructions:
          "Tools that read and drive the user's editor (the one running an ide-companion for this folder): its diagnostics, open files, selection, and opening a file at a line.",
      },
    );
    for (const { tool, annotations } of EDITOR_TOOLS) {
      const registered = this.server.registerTool(tool.name, { description: tool.description, inputSchema: tool.arguments, annotations }, (args: unknown) =>
        this.forward(tool.name, (args ?? {}) as Record<string, unknown>),
      );
      this.registered.set(tool.name, registered);
    }
    this.sync();
    this.unsubscribe = client.onStatusChange(() => this.sync());
  }

  /** The names listed now. */
  listed(): EditorToolName[] {
    return [...this.registered].filter(([, r]) => r.enabled).map(([name]) => name);
  }

  close(): void {
    this.unsubscribe();
  }

  /** Enables the tools the connected companion offers, or all of them with no companion. */
  private sync(): void {
    const offered = this.client.status.status === 'connected' ? new Set(this.client.tools) : undefined;
    for (const [name, registered] of this.registered) {
      const want = offered === undefined || offered.has(name);
      if (want !== registered.enabled) registered.update({ enabled: want });
    }
    const listed = this.listed().join(', ');
    if (listed !== this.lastListed) {
      this.lastListed = listed;
      const state = this.client.status;
      this.options.log?.(
        state.status === 'connected'
          ? `connected to ${this.client.ideInfo?.displayName ?? 'a companion'}; tools: ${listed}`
          : `no editor connected; listing every tool`,
      );
    }
  }

  private async forward(name: EditorToolName, args: Record<string, unknown>): Promise<CallToolResult> {
    // One immediate attempt (joins the client's own if one is under way): an editor
    // started a moment ago answers now rather than at the next retry.
    if (this.client.status.status !== 'connected') await this.client.connect();
    if (this.client.status.status !== 'connected') return toolError(this.explainUnavailable());
    const ide = this.client.ideInfo?.displayName ?? 'the editor';
    if (!this.client.tools.includes(name)) {
      return toolError(`${ide} does not offer ${name} (its tools: ${this.client.tools.join(', ') || 'none'}).`);
    }
    const timeoutMs = this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    let result: CallToolResult;
    try {
      result = await this.client.callTool(name, args, timeoutMs);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/timed out|timeout/i.test(message)) {
        return toolError(
          `${ide} did not answer ${name} within ${timeoutMs / 1000} s: its companion may be frozen or gone. Try again; if it persists, run \`ide-companion doctor\` in ${this.options.cwd}.`,
        );
      }
      return toolError(`The call ${name} to ${ide} failed: ${message}. The editor or its companion may have stopped; the tools come back when it runs again.`);
    }
    const size = result.content.reduce((n, block) => n + (block.type === 'text' ? block.text.length : JSON.stringify(block).length), 0);
    if (size > MAX_RESULT_CHARS)
      return toolError(
        `${ide} answered ${name} with ${size} characters, more than the ${MAX_RESULT_CHARS} handed to a model; narrow the request (one file, a severity).`,
      );
    // The companion's answer, cleaned: JSON text, or isError with its reason.
    return cleanResult({ content: result.content, ...(result.isError ? { isError: true } : {}) });
  }

  /** Why no editor answers, in one paragraph a model can pass on to the user. */
  private explainUnavailable(): string {
    const details = this.client.status.details;
    const why = details ? withOurInstallHint(details).trim() : 'no IDE companion was found.';
    return [
      `No editor is connected for ${this.options.cwd}: ${why.replace(/\s*\n\s*/g, ' ')}`,
      'These tools work as soon as an editor companion for this folder runs; no restart is needed.',
      `\`ide-companion doctor\` in ${this.options.cwd} explains every step. Tell the user rather than retrying in a loop.`,
    ].join(' ');
  }
}
