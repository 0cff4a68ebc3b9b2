/**
 * What the agents' own vocabularies (claudeTools.ts, copilotTools.ts) share
 * over the companion's tools: a tool's JSON answer read back, and the shapes
 * both give diagnostics (per file, 0-based).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Diagnostic, Range } from '@ide-companion/protocol';
import { runTool } from '../tools/index.js';
import { textResult, type ToolDefinition, type ToolEnvironment } from '../tools/toolDefinition.js';

export const json = (value: unknown): CallToolResult => textResult(JSON.stringify(value));

/** The JSON answer of one of our tools, or its error as the agent's tool error. */
export async function ask<T>(definition: ToolDefinition, args: unknown, env: ToolEnvironment, sessionId: string): Promise<T | CallToolResult> {
  const result = await runTool(definition, args, env, { sessionId });
  if (result.isError) return result;
  const block = result.content[0];
  return JSON.parse(block?.type === 'text' ? block.text : 'null') as T;
}

export function isResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && 'content' in value && Array.isArray((value as CallToolResult).content);
}

export const zeroBased = (range: Range) => ({
  start: { line: range.start.line - 1, character: range.start.character - 1 },
  end: { line: range.end.line - 1, character: range.end.character - 1 },
});

/** The diagnostics grouped by file, files in the order they first appear. */
export function diagnosticsByFile(diagnostics: readonly Diagnostic[]): Map<string, Diagnostic[]> {
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    const list = byFile.get(d.path);
    if (list) list.push(d);
    else byFile.set(d.path, [d]);
  }
  return byFile;
}
