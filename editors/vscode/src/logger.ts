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
    this.write('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  /**
   * Never throws: while the extension host stops (window closed or reloaded)
   * the channel's pipe to VS Code is already closed, and a log line must not
   * cut the stop short (the user's edits are handed over after one).
   */
  private write(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown> | undefined): void {
    try {
      this.channel[level](message + formatFields(fields));
    } catch {
      // Nowhere left to write it.
    }
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
