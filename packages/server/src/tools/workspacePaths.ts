/**
 * The path arguments of every tool, checked here once, before the tool's
 * handler runs; the handler hands the editor only what this returns.
 *
 * - Every path argument of every tool (each tool's protocol declares where its
 *   paths are): control characters (C0, DEL, C1) are refused. No file a user
 *   means is named with one, and an editor's command line or a terminal
 *   echoing the name would act on them. So are lone surrogates: a Linux file
 *   name is bytes, and none decodes to one; an editor's JSON decoder fails on
 *   it (Emacs's json-parse: the call went unanswered).
 * - `act`: tools that change what the user sees or has on disk (openFile,
 *   saveDocument) act only on regular files inside the workspace roots: the
 *   token grants the workspace, not the machine, and a FIFO, device, socket or
 *   directory would freeze or bloat the editor that opens it. The file must
 *   exist; its symlinks are resolved and the resolved path is checked AND
 *   handed to the editor, so a link swapped after the check cannot send the
 *   editor elsewhere (the check acts on what it checked). The root keeps the
 *   name the editor gave it (the user's `/tmp` link stays `/tmp`); only what
 *   lies below the root is resolved. The file's identity (device, inode) is
 *   kept, and `recheck` tells whether the name still leads to it: the tool
 *   re-checks right after the editor's open and its save (openFile.ts,
 *   saveDocument.ts), which closes what it opened on a mismatch.
 * - `read`: tools that only read the editor's state (checkDocumentDirty,
 *   getDiagnostics) take any absolute path, normalized (`.`, `..`, `//`) but not
 *   resolved: editors know a file by the name it was opened with. An existing
 *   path that is not a regular file is refused all the same.
 *
 * What remains: a swap made and undone while the editor opens (or writes)
 * passes the re-check; only an open by descriptor, which no editor offers,
 * closes that. See docs/reliability.md, "Hostile input: paths".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PathLocation } from '@ide-companion/protocol';
import { kindOf, rootEntryHolding } from '@ide-companion/shared/pinnedFiles';
import { realOrUndefined } from '@ide-companion/shared/realPaths';

export type PathUse = 'act' | 'read';

/** C0 (newline and tab too: no file name holds one by intent), DEL and C1. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** A UTF-16 surrogate without its pair: no Linux file name (bytes, UTF-8 to us) decodes to one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why `p` may not be used as a path because of a character in it, or undefined: a control character, or a lone
 * surrogate (not text: an editor's JSON or UTF-8 encoder fails on it, or silently names another file).
 */
export function controlCharacterIn(p: string): string | undefined {
  const found = CONTROL_CHARACTER.exec(p);
  if (found) return `it holds a control character (U+${hex(found[0])} at ${found.index})`;
  const lone = LONE_SURROGATE.exec(p);
  if (lone) return `it holds a lone surrogate (U+${hex(lone[0])} at ${lone.index}), which no file name holds`;
  return undefined;
}

const hex = (c: string) => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/** `p` quoted with every control character escaped (JSON.stringify leaves DEL and C1 raw): safe to echo to a terminal. */
export function quotedPath(p: string): string {
  return JSON.stringify(p).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A path the tool may hand the editor, and for `act` what it led to when checked. */
export interface CheckedPath {
  /** What the editor is handed. */
  readonly path: string;
  /**
   * Why `path` no longer leads to the regular file that was checked, or undefined (always for `read`). After a write
   * only its real path counts: editors save by writing a new file under the name (Vim's and Emacs's backups by
   * renaming), which changes the inode.
   */
  recheck(afterWrite?: boolean): Error | undefined;
}

const real = realOrUndefined;

/** The regular file at `p` (links followed), or why it is not one. */
function regularFile(p: string): fs.Stats | Error {
  let stat: fs.Stats;
  try {
    // stat, not open: opening a FIFO blocks, and stat of a FIFO or device never does.
    stat = fs.statSync(p);
  } catch {
    return new Error('it does not exist');
  }
  return stat.isFile() ? stat : new Error(`it is ${kindOf(stat)}, not a regular file`);
}

const unchecked = (p: string): CheckedPath => ({ path: p, recheck: () => undefined });

/**
 * The path the editor is to be handed for `filePath`, or an Error saying why
 * the tool may not use it (its message completes "... refused PATH: ").
 */
export function checkToolPath(filePath: string, roots: readonly string[], use: PathUse): CheckedPath | Error {
  const control = controlCharacterIn(filePath);
  if (control) return new Error(control);
  if (!path.isAbsolute(filePath)) return use === 'read' ? unchecked(filePath) : new Error('it is not an absolute path');
  if (use === 'read') {
    const normalized = path.normalize(filePath);
    // A name the editor may hold unsaved need not exist; what exists must be a file.
    if (!fs.existsSync(normalized)) return unchecked(normalized);
    const file = regularFile(normalized);
    return file instanceof Error ? file : unchecked(normalized);
  }
  const resolved = real(filePath);
  if (!resolved) return new Error('it does not exist');
  // The deepest root holding it: nested roots name the file from the nearest.
  const best = rootEntryHolding(resolved, roots, true);
  if (!best) return new Error(`it is outside the workspace folders (${roots.join(', ') || 'none'})`);
  const file = regularFile(resolved);
  if (file instanceof Error) return file;
  const rel = path.relative(best.real, resolved);
  const handed = rel === '' ? best.root : path.join(best.root, rel);
  return {
    path: handed,
    recheck(afterWrite = false) {
      const now = real(handed);
      const stat = now === undefined ? undefined : regularFile(now);
      const same = stat !== undefined && !(stat instanceof Error) && (afterWrite || (stat.dev === file.dev && stat.ino === file.ino));
      if (now === resolved && same) return undefined;
      return new Error(`${handed} no longer leads to the file that was checked (${resolved}): it was replaced while the editor used it`);
    },
  };
}

/** A path, or the path a `file://` URI names (Claude Code and Copilot CLI send either); throws on a URI naming no local path. */
export function pathOf(uriOrPath: string): string {
  return uriOrPath.startsWith('file://') ? fileURLToPath(uriOrPath) : uriOrPath;
}

/**
 * The first path argument (as the tool's protocol locates them) holding a control character, as a refusal naming the
 * tool; a `file://` URI is checked as the path it names too (`%0A` is a newline there).
 */
export function controlCharacterRefusal(toolName: string, args: unknown, locations: readonly PathLocation[]): Error | undefined {
  for (const location of locations) {
    for (const given of valuesAt(args, location)) {
      const control = controlCharacterIn(given) ?? controlCharacterIn(decodedUri(given));
      if (control) return new Error(`${toolName} refused ${quotedPath(given)}: ${control}.`);
    }
  }
  return undefined;
}

/** The path a `file://` URI names; the string itself when it is none (a malformed URI is the tool's own error to give). */
function decodedUri(given: string): string {
  try {
    return pathOf(given);
  } catch {
    return given;
  }
}

/** The strings at `location` in `value` (`*` steps into every element of an array). */
function valuesAt(value: unknown, location: PathLocation): string[] {
  if (location.length === 0) return typeof value === 'string' ? [value] : [];
  const [step, ...rest] = location;
  if (step === '*') return Array.isArray(value) ? value.flatMap((v) => valuesAt(v, rest)) : [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return valuesAt((value as Record<string, unknown>)[step!], rest);
}

/** `args` with its `path` replaced by what `checkToolPath` gives (and the check kept), or the refusal as an Error naming the tool. */
export function withToolPath<A>(toolName: string, args: A, roots: readonly string[], use: PathUse): { args: A; checked?: CheckedPath } | Error {
  const given = (args as { path?: unknown } | undefined)?.path;
  if (typeof given !== 'string') return { args };
  const checked = checkToolPath(given, roots, use);
  // A name with control characters is shown escaped: echoed raw, it would act on the agent's terminal.
  const shown = controlCharacterIn(given) ? quotedPath(given) : given;
  if (checked instanceof Error) return new Error(`${toolName} refused ${shown}: ${checked.message}.`);
  return { args: { ...args, path: checked.path }, checked };
}
