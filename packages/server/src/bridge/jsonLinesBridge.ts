/**
 * Connects a Companion to an editor-side script over line-delimited JSON
 * (kind 3 of the adapter seam). The script stays small: it reports events and
 * decisions and draws diffs; all protocol logic stays in the Companion.
 *
 *   const bridge = new JsonLinesBridge(input, output);
 *   const companion = new Companion({ ideInfo, diffView: bridge.diffView, ... });
 *   await companion.start();
 *   bridge.attach(companion);
 *
 * Bad lines are answered with `{"type":"error"}` and change nothing.
 */
import * as path from 'node:path';
import * as readline from 'node:readline';
import { z } from 'zod';
import type { Companion } from '../companion.js';
import type { DiffCloseReason, DiffView, PendingDiff } from '../diffView.js';
import { describeError } from '../logger.js';
import { EditorMessageSchema, type EditorMessage, type HostMessage } from './messages.js';

/** How long the host waits for the editor's edited text before using the proposal. */
const CURRENT_TEXT_TIMEOUT_MS = 2000;
/** Longest line accepted from the editor (an accepted 32 MiB file, JSON-escaped). */
const MAX_LINE_CHARS = 256 * 1024 * 1024;

export class JsonLinesBridge {
  private companion: Companion | undefined;
  private nextRequestId = 1;
  private readonly pendingText = new Map<number, (text: string | undefined) => void>();
  private readonly rl: readline.Interface;
  private readonly early: EditorMessage[] = [];

  readonly diffView: DiffView = {
    show: (diff: PendingDiff) => this.send({ type: 'showDiff', id: diff.id, filePath: diff.filePath, newContent: diff.newContent }),
    currentText: (diff: PendingDiff) => this.requestCurrentText(diff.id),
    close: (diff: PendingDiff, reason: DiffCloseReason) => this.send({ type: 'closeDiff', id: diff.id, reason }),
  };

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.rl = readline.createInterface({ input, crlfDelay: Infinity });
    this.rl.on('line', (line) => this.receive(line));
  }

  /** Starts applying editor messages to `companion` and tells the editor how to reach it. */
  attach(companion: Companion): void {
    this.companion = companion;
    this.send({ type: 'ready', port: companion.port, env: { ...companion.terminalEnv }, discoveryFile: companion.discoveryFilePath ?? '' });
    companion.onDidChangeSessions((s) => this.send({ type: 'sessions', count: s.length }));
    for (const message of this.early.splice(0)) this.apply(message);
  }

  close(): void {
    this.rl.close();
    for (const resolve of this.pendingText.values()) resolve(undefined);
    this.pendingText.clear();
  }

  private send(message: HostMessage): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    if (line.length > MAX_LINE_CHARS) return this.send({ type: 'error', message: 'line too long' });
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      return this.send({ type: 'error', message: `not JSON: ${describeError(err)}` });
    }
    const parsed = EditorMessageSchema.safeParse(json);
    if (!parsed.success) return this.send({ type: 'error', message: `invalid message: ${z.prettifyError(parsed.error)}` });
    const message = parsed.data;
    if ('path' in message && !path.isAbsolute(message.path)) {
      return this.send({ type: 'error', message: `path must be absolute: ${JSON.stringify(message.path)}` });
    }
    if (!this.companion) {
      this.early.push(message);
      return;
    }
    this.apply(message);
  }

  private apply(message: EditorMessage): void {
    const companion = this.companion!;
    const context = companion.context;
    try {
      switch (message.type) {
        case 'focus':
          return context.focus(message.path, { cursor: message.cursor, selectedText: message.selectedText });
        case 'open':
          return context.open(message.path, message.timestamp);
        case 'close':
          return context.close(message.path);
        case 'cursor':
          return context.setCursor(message.path, message.cursor, message.selectedText);
        case 'selection':
          return context.setSelection(message.path, message.selectedText);
        case 'rename':
          return context.rename(message.from, message.to);
        case 'delete':
          return context.delete(message.path);
        case 'saved':
          return context.saved(message.path);
        case 'roots':
          return context.setRoots(message.roots);
        case 'trust':
          return context.setTrusted(message.trusted);
        case 'diffAccepted':
          if (!companion.diffs.accept(message.id, message.content)) this.send({ type: 'error', message: `no pending diff ${message.id}` });
          return;
        case 'diffRejected':
          if (!companion.diffs.reject(message.id)) this.send({ type: 'error', message: `no pending diff ${message.id}` });
          return;
        case 'currentText': {
          const resolve = this.pendingText.get(message.requestId);
          this.pendingText.delete(message.requestId);
          resolve?.(message.text ?? undefined);
          return;
        }
      }
    } catch (err) {
      this.send({ type: 'error', message: describeError(err) });
    }
  }

  private requestCurrentText(id: string): Promise<string | undefined> {
    const requestId = this.nextRequestId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pendingText.delete(requestId);
        resolve(undefined);
      }, CURRENT_TEXT_TIMEOUT_MS);
      this.pendingText.set(requestId, (text) => {
        clearTimeout(timer);
        resolve(text);
      });
      this.send({ type: 'currentText', requestId, id });
    });
  }
}
