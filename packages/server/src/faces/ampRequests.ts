/**
 * Amp's requests answered from the core, each a thin mapping: readFile and
 * editFile through the workspace path checks (regular files inside the
 * roots; readFile with the diff coordinator's size cap; read and written by
 * descriptor, shared/pinnedFiles.ts, so a link swapped in after the check is
 * refused, never followed), editFile through
 * the diff view (the user accepts, edits or rejects; the answer waits and
 * says what happened, and an accepted text is written here, as amp.nvim's
 * editFile writes the file), getDiagnostics through the editor's action,
 * openURI through openFile for a `file://` URI inside the roots. What is
 * refused is answered `success: false` with the reason (as amp.nvim does);
 * a malformed request gets a JSON-RPC error code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  AMP_ERROR,
  AmpRequestParamsSchemas,
  type AmpDiagnostic,
  type AmpEditMode,
  type AmpDiagnosticsResult,
  type AmpEditFileResult,
  type AmpId,
  type AmpOpenUriResult,
  type AmpReadFileResult,
  type AmpRequestName,
  type Diagnostic,
} from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import { readPinned, writePinned } from '@ide-companion/shared/pinnedFiles';
import { BufferWriteRefused, canWriteBuffers, writeUnderBuffer } from '../bufferWrites.js';
import { describeError } from '../logger.js';
import { getDiagnostics } from '../tools/getDiagnostics.js';
import { openFile } from '../tools/openFile.js';
import type { ToolDefinition, ToolEnvironment } from '../tools/toolDefinition.js';
import { checkToolPath, controlCharacterIn } from '../tools/workspacePaths.js';
import type { AmpAnswer, AmpSession } from './amp.js';
import { ask, isResult } from './faceAnswers.js';

export interface AmpRequestContext {
  env: ToolEnvironment;
  /** The tools this companion offers (what its editor can do). */
  offered: readonly ToolDefinition[];
  /** Largest file read or proposed. */
  maxFileBytes: number;
  /** editFile through the diff view (`review`) or under the editor's buffer (`buffer`, where the editor can: bufferWrites.ts). */
  editMode: AmpEditMode;
  /** The editor's name as the user reads it ("Neovim"), for the refusals. */
  ideName: string;
}

/** Answers one Amp request. */
export async function answerAmpRequest(ctx: AmpRequestContext, session: AmpSession, _id: AmpId, method: string, params: unknown): Promise<AmpAnswer> {
  if (!(method in AmpRequestParamsSchemas)) {
    return { error: { code: AMP_ERROR.methodNotFound, message: `Method not found: ${method}`, data: 'Unknown IDE request method' } };
  }
  const name = method as AmpRequestName;
  const parsed = AmpRequestParamsSchemas[name].safeParse(params ?? {});
  if (!parsed.success) {
    return {
      error: {
        code: AMP_ERROR.invalidParams,
        message: 'Invalid params',
        data: `${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(params)'} ${i.message}`).join('; ')}`,
      },
    };
  }
  const args = parsed.data as Record<string, string>;
  switch (name) {
    case 'ping':
      return { result: { message: args['message'] } };
    case 'authenticate':
      // The token was checked on the upgrade: a connection that got here is authenticated.
      return { result: { authenticated: true } };
    case 'readFile':
      return { result: await readFile(ctx, args['path']!) };
    case 'editFile':
      return { result: await editFile(ctx, session, args['path']!, args['fullContent']!) };
    case 'getDiagnostics':
      return { result: await diagnostics(ctx, session, args['path']!) };
    case 'openURI':
      return { result: await openUri(ctx, session, args['uri']!) };
  }
}

/** A path or a `file://` URI as a path; an Error for anything else. */
function localPath(given: string): string | Error {
  const control = controlCharacterIn(given);
  if (control) return new Error(control);
  if (!given.startsWith('file://')) return given;
  try {
    const p = fileURLToPath(given);
    return controlCharacterIn(p) ? new Error(controlCharacterIn(p)) : p;
  } catch (err) {
    return new Error(describeError(err));
  }
}

async function readFile(ctx: AmpRequestContext, given: string): Promise<AmpReadFileResult> {
  const p = localPath(given);
  const checked = p instanceof Error ? p : checkToolPath(p, ctx.env.context.getRoots(), 'act');
  if (checked instanceof Error) return { success: false, message: `readFile refused ${given}: ${checked.message}` };
  try {
    // By descriptor, inside the roots: a file or folder swapped for a link since the check is refused, not read through.
    const content = await readPinned(checked.path, ctx.maxFileBytes, { roots: ctx.env.context.getRoots(), use: 'read' });
    if (content === undefined) return { success: false, message: `readFile: ${given} does not exist` };
    return { success: true, content, encoding: 'utf-8' };
  } catch (err) {
    return { success: false, message: `readFile could not read ${given}: ${describeError(err)}` };
  }
}

/**
 * Where editFile may write: an existing regular file inside the roots (its
 * resolved path), or a new file whose folder is inside them.
 */
function editTarget(given: string, roots: readonly string[]): string | Error {
  const p = localPath(given);
  if (p instanceof Error) return p;
  if (!path.isAbsolute(p)) return new Error('it is not an absolute path');
  if (fs.existsSync(p)) {
    const checked = checkToolPath(p, roots, 'act');
    return checked instanceof Error ? checked : checked.path;
  }
  const folder = checkToolPath(path.dirname(p), roots, 'act');
  // The folder is no regular file, so the check refuses it for that alone: inside the roots is what counts here.
  if (folder instanceof Error && !/not a regular file/.test(folder.message)) return new Error(`its folder is refused: ${folder.message}`);
  const parent = folder instanceof Error ? realFolder(path.dirname(p)) : folder.path;
  if (parent === undefined) return new Error('its folder does not exist');
  return path.join(parent, path.basename(p));
}

function realFolder(dir: string): string | undefined {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : undefined;
  } catch {
    return undefined;
  }
}

async function editFile(ctx: AmpRequestContext, session: AmpSession, given: string, fullContent: string): Promise<AmpEditFileResult> {
  const { env } = ctx;
  const target = editTarget(given, env.context.getRoots());
  if (target instanceof Error) return { success: false, message: `editFile refused ${given}: ${target.message}`, appliedChanges: false };
  if (ctx.editMode === 'buffer' && canWriteBuffers(env.editor)) return writeThroughBuffer(ctx, given, target, fullContent);
  if (!env.diffs.enabled)
    return { success: false, message: 'editFile: this editor shows no diffs, so nothing is changed without review', appliedChanges: false };
  if (Buffer.byteLength(fullContent) > ctx.maxFileBytes) {
    return { success: false, message: `editFile refused ${given}: the content is over the ${ctx.maxFileBytes}-byte limit`, appliedChanges: false };
  }
  if (session.edits.has(target)) {
    // A newer proposal for the same file: the earlier one is answered and its diff closed without a notification,
    // which would otherwise settle this one.
    session.settleEdit(target, { accepted: false, replaced: true });
    await env.diffs.close(session.id, target);
  }
  const outcome = session.waitEdit(target);
  try {
    await env.diffs.open(session.id, target, fullContent, AGENT_DISPLAY_NAMES.amp);
  } catch (err) {
    session.settleEdit(target, { accepted: false });
    env.logger.warn('Amp editFile refused', { filePath: target, error: describeError(err) });
    return { success: false, message: `editFile could not show the change to ${given}: ${describeError(err)}`, appliedChanges: false };
  }
  const { accepted, content, replaced } = await outcome;
  if (replaced) return { success: false, message: `A newer editFile of ${given} replaced this one; the file is unchanged`, appliedChanges: false };
  if (!accepted) return { success: false, message: `The user rejected the changes to ${given}; the file is unchanged`, appliedChanges: false };
  const finalContent = content ?? fullContent;
  // Checked again right before writing: a link put there while the user decided sends the write nowhere else.
  const again = editTarget(given, env.context.getRoots());
  if (again instanceof Error || again !== target) {
    return { success: false, message: `editFile refused ${given} after review: the path changed while the user decided`, appliedChanges: false };
  }
  try {
    // By descriptor (shared/pinnedFiles.ts): a link swapped in after that check is replaced, never written through.
    writePinned(target, finalContent, { roots: env.context.getRoots(), use: 'write' });
  } catch (err) {
    return {
      success: false,
      message: `The user accepted the changes to ${given}, but they could not be written: ${describeError(err)}`,
      appliedChanges: false,
    };
  }
  const edited = finalContent !== fullContent;
  return {
    success: true,
    message: edited
      ? `The user edited and accepted the changes to ${given}; the file now holds their version (read it again)`
      : `The user accepted the changes to ${given}`,
    appliedChanges: true,
  };
}

/**
 * The `buffer` mode: the text is written under the user's buffer of the file,
 * which the user undoes there (no review, as amp.nvim does): the companion's
 * one rule (bufferWrites.ts) refuses a buffer with unsaved changes.
 */
async function writeThroughBuffer(ctx: AmpRequestContext, given: string, target: string, fullContent: string): Promise<AmpEditFileResult> {
  let note: string | undefined;
  try {
    note = await writeUnderBuffer(ctx.env, { target, content: fullContent, agent: AGENT_DISPLAY_NAMES.amp, ideName: ctx.ideName, maxBytes: ctx.maxFileBytes });
  } catch (err) {
    if (!(err instanceof BufferWriteRefused)) ctx.env.logger.warn('Amp editFile: the buffer write failed', { filePath: target, error: describeError(err) });
    return { success: false, message: `editFile refused ${given}: ${describeError(err)}`, appliedChanges: false };
  }
  const message = `Written to ${given} under the editor's buffer; the user can undo it there`;
  return { success: true, message: note ? `${message}, but ${note}` : message, appliedChanges: true };
}

const SEVERITY: Record<Diagnostic['severity'], AmpDiagnostic['severity']> = { error: 'error', warning: 'warning', information: 'info', hint: 'hint' };

/** Diagnostics under `given` (a file, or a folder: every file below it, as amp.nvim matches by prefix). */
async function diagnostics(ctx: AmpRequestContext, session: AmpSession, given: string): Promise<AmpDiagnosticsResult> {
  if (!ctx.offered.includes(getDiagnostics)) return { entries: [] };
  const p = localPath(given);
  if (p instanceof Error) throw new Error(`getDiagnostics refused ${given}: ${p.message}`);
  const isFolder = fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const answer = await ask<{ diagnostics: Diagnostic[] }>(getDiagnostics, isFolder ? {} : { path: p }, ctx.env, session.id);
  if (isResult(answer)) {
    const block = answer.content[0];
    throw new Error(block?.type === 'text' ? block.text : 'getDiagnostics failed');
  }
  // What lies under the path asked (amp.nvim matches by prefix): a file's own, or a folder's files.
  const under = isFolder ? (file: string) => file.startsWith(path.normalize(p + path.sep)) : (file: string) => file === path.normalize(p);
  const byUri = new Map<string, AmpDiagnostic[]>();
  const lines = new Map<string, string[]>();
  for (const d of answer.diagnostics) {
    if (!under(d.path)) continue;
    const uri = pathToFileURL(d.path).href;
    if (!lines.has(d.path)) lines.set(d.path, await fileLines(d.path, ctx.env.context.getRoots(), ctx.maxFileBytes));
    const startLine = d.range.start.line - 1;
    const entry: AmpDiagnostic = {
      range: { startLine, startCharacter: d.range.start.character - 1, endLine: d.range.end.line - 1, endCharacter: d.range.end.character - 1 },
      severity: SEVERITY[d.severity],
      description: d.message,
      lineContent: lines.get(d.path)![startLine] ?? '',
      startOffset: d.range.start.character - 1,
      endOffset: d.range.end.character - 1,
    };
    const list = byUri.get(uri);
    if (list) list.push(entry);
    else byUri.set(uri, [entry]);
  }
  return { entries: [...byUri].map(([uri, list]) => ({ uri, diagnostics: list })) };
}

/**
 * A file's lines as on disk, for lineContent; none when it cannot be read as a regular file, or lies outside the roots
 * (the editor may name any file, a link's target too: no outside file's text is returned).
 */
async function fileLines(file: string, roots: readonly string[], maxBytes: number): Promise<string[]> {
  // A name the editor gave with a control character is no file of ours to read (as the tools' path check says).
  if (controlCharacterIn(file)) return [];
  try {
    // Inside the roots by its real path, a regular file, read by descriptor: one check, pinnedFiles' own.
    return (await readPinned(file, maxBytes, { roots, use: 'read' }))?.split('\n') ?? [];
  } catch {
    return [];
  }
}

async function openUri(ctx: AmpRequestContext, session: AmpSession, uri: string): Promise<AmpOpenUriResult> {
  if (!uri.startsWith('file://')) return { success: false, message: `Unsupported URI scheme: only file:// URIs inside the workspace are opened, not ${uri}` };
  if (!ctx.offered.includes(openFile)) return { success: false, message: 'This editor cannot open files for the agent' };
  const p = localPath(uri);
  if (p instanceof Error) return { success: false, message: `openURI refused ${uri}: ${p.message}` };
  // openFile's own path check (regular file inside the roots) runs in ask.
  const answer = await ask<{ opened: string }>(openFile, { path: p }, ctx.env, session.id);
  if (isResult(answer)) {
    const block = answer.content[0];
    return { success: false, message: block?.type === 'text' ? block.text : `could not open ${uri}` };
  }
  return { success: true, message: `Opened ${uri}` };
}
