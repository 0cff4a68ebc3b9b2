/**
 * One definition per message, as in vscode-languageserver-node: the literal
 * method or tool name, who sends it, and its params and result schemas, in one
 * object. Unions over these are inferred from the literals, never cast.
 */
import type { z } from 'zod/mini';

/** Which end sends the message. */
export type Direction = 'companionToCli' | 'cliToCompanion';

export interface NotificationType<M extends string, P extends z.ZodMiniType> {
  readonly kind: 'notification';
  readonly method: M;
  readonly direction: Direction;
  readonly params: P;
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
}

export function notificationType<const M extends string, P extends z.ZodMiniType>(method: M, direction: Direction, params: P): NotificationType<M, P> {
  return { kind: 'notification', method, direction, params };
}

export function toolType<const N extends string, A extends z.ZodMiniObject, R extends z.ZodMiniType, const C extends string | undefined = undefined>(
  name: N,
  description: string,
  args: A,
  result: R,
  capability?: C,
): ToolType<N, A, R, C> {
  return { kind: 'tool', name, description, direction: 'cliToCompanion', arguments: args, result, capability: capability as C };
}
