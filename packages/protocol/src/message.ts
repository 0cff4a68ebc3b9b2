/**
 * One definition per message, as in vscode-languageserver-node: the method
 * name, who sends it, and the params schema, in one object.
 */
import type { z } from 'zod';

/** Which end sends the message. */
export type Direction = 'companionToCli' | 'cliToCompanion';

export interface NotificationType<P extends z.ZodType> {
  readonly kind: 'notification';
  readonly method: string;
  readonly direction: Direction;
  readonly params: P;
}

export interface ToolType<A extends z.ZodObject> {
  readonly kind: 'tool';
  readonly name: string;
  readonly description: string;
  readonly direction: 'cliToCompanion';
  readonly arguments: A;
}

export function notificationType<P extends z.ZodType>(method: string, direction: Direction, params: P): NotificationType<P> {
  return { kind: 'notification', method, direction, params };
}

export function toolType<A extends z.ZodObject>(name: string, description: string, args: A): ToolType<A> {
  return { kind: 'tool', name, description, direction: 'cliToCompanion', arguments: args };
}
