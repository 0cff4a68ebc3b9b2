/**
 * The companion's log: the "Gemini CLI Companion" output channel. Callers log
 * paths, sizes, counts and ids; as a second line of defence, fields whose name
 * says they hold a secret or file text are never written.
 */
import * as vscode from 'vscode';
import type { Logger } from '@ide-companion/server/logger';

const HIDDEN_FIELD = /token|secret|content|text|env/i;

function formatFields(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) shown[key] = HIDDEN_FIELD.test(key) ? '[hidden]' : value;
  return ` ${JSON.stringify(shown)}`;
}

export class OutputChannelLogger implements Logger, vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;

  constructor(name = 'Gemini CLI Companion') {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.channel.debug(message + formatFields(fields));
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.channel.info(message + formatFields(fields));
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.channel.warn(message + formatFields(fields));
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.channel.error(message + formatFields(fields));
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
