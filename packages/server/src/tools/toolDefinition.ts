/**
 * Tools as data: each module under tools/ exports one ToolDefinition (the
 * protocol's tool type, what it needs of the editor, its handler), and
 * index.ts registers, from one list, those the editor can serve.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Capability, ToolType } from '@ide-companion/protocol';
import { cleanText } from '@ide-companion/protocol';
import type { z } from 'zod/mini';
import type { ContextTracker } from '../contextTracker.js';
import type { DiffCoordinator } from '../diffCoordinator.js';
import type { EditorActions } from '../editorActions.js';
import type { Logger } from '../logger.js';
import type { CheckedPath, PathUse } from './workspacePaths.js';

/** What a tool handler may use; one per companion, shared by every session's McpServer. */
export interface ToolEnvironment {
  context: ContextTracker;
  diffs: DiffCoordinator;
  editor: EditorActions | undefined;
  logger: Logger;
  /** Overrides every action's own timeout (tests). */
  editorTimeoutMs?: number;
  /** Which agent a session is, as the user reads it ("Qwen Code"): a diff shows who proposed it. */
  agentOf?: (sessionId: string) => string;
  /** Whether `ide-companion check` opened the session (http/checkProbe.ts): its refusals are logged below the warnings. */
  isCheckProbe?: (sessionId: string) => boolean;
  /** Whether a session came in on a Unix socket (the relay's way in), not the port: only such may send an openDiff's remote base. */
  openedOnSocket?: (sessionId: string) => boolean;
}

export interface ToolCall {
  /** The MCP session the call arrived on (always set over Streamable HTTP). */
  sessionId: string;
  /** The `path` argument as checked (workspacePaths.ts), for tools that re-check it after the editor used it. */
  checked?: CheckedPath;
  /** The request's `params._meta`, as the client sent it (tools/openDiff.ts reads the relay's remote base there). */
  meta?: Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolType = ToolType<string, z.ZodMiniObject, z.ZodMiniType, any>;

export interface ToolDefinition<T extends AnyToolType = AnyToolType> {
  tool: T;
  /** `diffs`: any editor (diffs are required of all); a capability: editors that declared it; none: always. */
  requires?: 'diffs' | Capability;
  /** How the tool's `path` argument is resolved before the handler sees it (workspacePaths.ts); every tool taking a `path` says. */
  path?: PathUse;
  handler(args: z.infer<T['arguments']>, env: ToolEnvironment, call: ToolCall): Promise<CallToolResult>;
}

/** Keeps the literal types of a definition while checking its shape. */
export function defineTool<T extends AnyToolType>(definition: ToolDefinition<T>): ToolDefinition<T> {
  return definition;
}

/** A tool's answer carrying one error text block (control characters of an echoed path or editor message removed). */
export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: cleanText(message) }] };
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A JSON tool's answer, checked against the tool's result schema first. */
export function jsonResult<T extends AnyToolType>(tool: T, value: z.infer<T['result']>): CallToolResult {
  return textResult(JSON.stringify(tool.result.parse(value)));
}
