/**
 * One definition per message, as in vscode-languageserver-node: the literal
 * method or tool name, who sends it, and its params and result schemas, in one
 * object. Unions over these are inferred from the literals, never cast.
 */
import type { z } from 'zod/mini';

/** Which end sends the message. */
export type Direction = 'companionToCli' | 'cliToCompanion';

/**
 * Where a message carries a file path: the keys from its params (or a tool's
 * arguments or JSON result) down to the path, `*` standing for every element
 * of an array. The relay rewrites exactly these between the editor's paths and
 * the CLI's (`ide-companion connect --map`, docs/remote.md); nothing else in a
 * message is ever taken for a path (a file's content may look like one).
 */
export type PathLocation = readonly string[];

export interface NotificationType<M extends string, P extends z.ZodMiniType> {
  readonly kind: 'notification';
  readonly method: M;
  readonly direction: Direction;
  readonly params: P;
  /** The paths in `params`. */
  readonly paths: readonly PathLocation[];
}

/**
 * The paths in a tool's arguments and in its answer: `result` locates them in
 * the JSON of a JSON tool's text block; `'activeFileText'` is getActiveFile's
 * text answer ("Active file: PATH ...").
 */
export interface ToolPaths {
  readonly arguments: readonly PathLocation[];
  readonly result: readonly PathLocation[] | 'activeFileText';
}

/**
 * An MCP tool the companion offers. `result` is the schema of what the tool's
 * answer carries: for JSON tools, the JSON in its one text block.
 * `capability` names the optional editor action the tool needs; tools without
 * one are always offered.
 */
export interface ToolType<N extends string, A extends z.ZodMiniObject, R extends z.ZodMiniType, C extends string | undefined = undefined> {
  readonly kind: 'tool';
  readonly name: N;
  readonly description: string;
  readonly direction: 'cliToCompanion';
  readonly arguments: A;
  readonly result: R;
  readonly capability: C;
  readonly paths: ToolPaths;
}

export function notificationType<const M extends string, P extends z.ZodMiniType>(
  method: M,
  direction: Direction,
  params: P,
  paths: readonly PathLocation[],
): NotificationType<M, P> {
  return { kind: 'notification', method, direction, params, paths };
}

export function toolType<const N extends string, A extends z.ZodMiniObject, R extends z.ZodMiniType, const C extends string | undefined = undefined>(
  name: N,
  description: string,
  args: A,
  result: R,
  paths: ToolPaths,
  capability?: C,
): ToolType<N, A, R, C> {
  return { kind: 'tool', name, description, direction: 'cliToCompanion', arguments: args, result, paths, capability: capability as C };
}
