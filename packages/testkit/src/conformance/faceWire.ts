/**
 * The face table's shapes (faceTable.ts) and what its entries share: waiting
 * for what an agent heard, a wrong token's refusal, the diagnostics' shapes.
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLAUDE_NOTIFICATION } from '@ide-companion/protocol';
import { sleep, waitFor } from '../wait.js';
import type { EndAction, EndSession } from './driver.js';
import { FACE_TIMEOUT_MS } from './faces.js';

/** What a face may lack. */
export type FaceAspect = 'mention' | 'diagnostics' | 'diffs' | 'decidedInEditor' | 'wrongToken';

/** One diff the agent asked for, pending. */
export interface FaceDiff {
  /** After the user accepted: the agent's answer checked, and the agent's own write done where the agent writes the file. */
  accepted(): Promise<void>;
  /** After the user rejected: the agent's answer checked. */
  rejected(): Promise<void>;
  /** The agent closes its diff itself (or goes away, where it has no close); its answer checked. */
  closeByAgent(): Promise<void>;
}

/** A connected agent. */
export interface FaceLink {
  /** Waits until the agent has heard `file` as the active file, with `selected` as its selected text when given. */
  heard(file: string, selected?: string): Promise<void>;
  /** Waits until the agent has heard "Send to agent" of lines `startLine` to `endLine` (1-based) of `file`. */
  mentioned?(file: string, startLine: number, endLine: number): Promise<void>;
  /** The diagnostics of `file` as the agent reads them: 1-based line, severity in lower case. */
  diagnostics?(file: string): Promise<Array<{ line: number; severity: string }>>;
  /** Asks for `proposal` as the new text of `file`; `tab` names it where the agent names its diffs; `edited`: the user will edit it. */
  openDiff?(file: string, proposal: string, tab: string, edited?: boolean): FaceDiff;
  close(): Promise<void>;
}

export interface FaceEntry {
  /** The agent's name, as the suite prints it. */
  readonly name: string;
  /** The end's optional actions it needs to be reached at all. */
  readonly needs: readonly EndAction[];
  /** What the agent does not have, with why (each such scenario is reported skipped with it). */
  readonly lacks: Partial<Record<FaceAspect, string>>;
  connect(session: EndSession): Promise<FaceLink>;
  /** Dials with a wrong token as the agent would; resolves with the refusal's words (the scenario checks nothing connected). */
  wrongToken?(session: EndSession): Promise<string>;
}

export const WRONG_TOKEN = 'not-the-token-0123456789';

/** `promise`, or a failure naming `what` after FACE_TIMEOUT_MS (an answer the end never gives must not hang the suite). */
export function answerOf<T>(promise: Promise<T>, what: string): Promise<T> {
  return waitFor(() => Promise.race([promise, sleep(100).then(() => undefined)]), what, FACE_TIMEOUT_MS) as Promise<T>;
}

/** Waits for a notification `find` picks among those recorded; the error lists the last few. */
export function heardIn<T extends { method: string; params: any }>(list: T[], find: (n: T) => boolean, what: string): Promise<T> {
  return waitFor(() => list.find(find), what, FACE_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; last heard: ${JSON.stringify(list.slice(-3))}`);
  });
}

/** The refusal a dial gets: its error's words; a dial that connects fails the scenario. */
export async function refusal(dial: () => Promise<{ close(): Promise<unknown> }>): Promise<string> {
  let connected: { close(): Promise<unknown> };
  try {
    connected = await dial();
  } catch (err) {
    return (err as Error).message;
  }
  await connected.close();
  throw new Error('a wrong token connected');
}

/** `selection_changed` in Claude Code's shape (Copilot CLI's is the same) for `file`, with `selected` as its text when given. */
export const selectionChanged = (list: Array<{ method: string; params: any }>, file: string, selected?: string) =>
  heardIn(
    list,
    (n) => n.method === CLAUDE_NOTIFICATION.selectionChanged && n.params.filePath === file && (selected === undefined || n.params.text === selected),
    `selection_changed for ${path.basename(file)}`,
  ).then(() => undefined);

/** A mention (`method`) of `file`'s lines (1-based), read 0-based from its params by `linesOf`. */
export const linesMentioned = (
  list: Array<{ method: string; params: any }>,
  method: string,
  file: string,
  [startLine, endLine]: [number, number],
  linesOf: (params: any) => [number, number],
) =>
  heardIn(
    list,
    (n) => n.method === method && n.params.filePath === file && linesOf(n.params).join() === [startLine - 1, endLine - 1].join(),
    `${method} with the lines`,
  ).then(() => undefined);

export const severityOf = (s: unknown) => String(s).toLowerCase();

/** Gemini CLI's and Qwen Code's getDiagnostics (one MCP tool): `{diagnostics: [{range (1-based), severity}]}`. */
export const mcpDiagnostics = (text: string) =>
  (JSON.parse(text) as { diagnostics: Array<{ range: { start: { line: number } }; severity: string }> }).diagnostics.map((d) => ({
    line: d.range.start.line,
    severity: severityOf(d.severity),
  }));

/** Claude Code's and Copilot CLI's: `[{uri, diagnostics: [{range (0-based), severity}]}]`. */
export const claudeDiagnostics = (text: string, file: string) =>
  (JSON.parse(text) as Array<{ uri: string; diagnostics: Array<{ range: { start: { line: number } }; severity: string }> }>)
    .filter((e) => e.uri === pathToFileURL(file).href)
    .flatMap((e) => e.diagnostics.map((d) => ({ line: d.range.start.line + 1, severity: severityOf(d.severity) })));

export const isActive = (context: any, file: string, selected?: string) => {
  const first = context?.workspaceState?.openFiles?.[0];
  return first?.path === file && first.isActive === true && (selected === undefined || first.selectedText === selected);
};
