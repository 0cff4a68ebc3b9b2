/**
 * Proposals kept for the user in files: what an end cannot keep in a buffer
 * (serve has none; VS Code loses its in-memory proposal documents with its
 * extension host) goes to a private folder, `TMPDIR/ide-companion-kept-UID/`
 * (0700, files 0600), never into the workspace.
 *
 * Two kinds live there. A kept file is the user's from then on (a proposal
 * whose CLI went away). A draft is the user's edits to a proposal still open,
 * named by the process that writes it (`draft-PID-…`) and removed once they
 * decide; a draft whose process died (kill -9, out of memory) is what that
 * process could not keep, and the next companion turns it into a kept file and
 * says so. A process stopping in order (a window closed or reloaded) hands its
 * drafts over (`draft-left-…`): theirs at once, whether or not the process has
 * exited yet, and a running companion watching the folder hears of them.
 *
 * A third kind is an accepted text the agent has not written yet
 * (`accepted-PID-….json`, acceptedWrites.ts): the companion's one memory of
 * it, removed once the file holds it or the session's memory ends. One whose
 * process died is claimed by the next companion whose workspace holds the
 * file, which shows it to the user as kept unless the file holds it by then.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensurePrivateDirectory } from './discoveryFile.js';
import { isProcessAlive } from '@ide-companion/shared/processAlive';

/** A draft: its writer's PID (or `left`, handed over), the diff's id, the kept name. */
const DRAFT = /^draft-(\d+|left)-([0-9a-f]{8})-(.+)$/;
const HANDED_OVER = 'draft-left-';
/** A draft or an accepted text being written (renamed over its file once whole). */
const PARTIAL = /^\.(?:draft|accepted)-(\d+)-.+\.partial$/;
/** An accepted text not yet written: its writer's PID, its id. */
const ACCEPTED = /^accepted-(\d+)-([0-9a-f]{8})\.json$/;

/** The private folder, created 0700 (refused when it is a link or another user's). */
export function keptDirectory(): string {
  const dir = path.join(os.tmpdir(), `ide-companion-kept-${process.getuid?.() ?? 'user'}`);
  ensurePrivateDirectory(dir);
  return dir;
}

/** A file name for a proposal of `filePath`: its extension kept (syntax colouring), nothing a shell or an editor could read as an option. */
export function proposalFileName(filePath: string): string {
  const base = path
    .basename(filePath)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(-80);
  return `proposal-${base || 'file'}`;
}

const stampNow = () => new Date().toISOString().replace(/[:.]/g, '-');

/** Writes `text` to a new kept file for a proposal of `filePath` (never over another); its path. Throws when it cannot. */
export function keepProposal(filePath: string, text: string): string {
  return writeNew(keptDirectory(), proposalFileName(filePath), (file) => fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' }));
}

/** `write`s a new file named by the time and `name` in `dir`, numbered when one of that name exists (two in one millisecond). */
function writeNew(dir: string, name: string, write: (file: string) => void): string {
  const stamp = stampNow();
  for (let n = 1; ; n++) {
    const file = path.join(dir, `${stamp}${n > 1 ? `-${n}` : ''}-${name}`);
    try {
      write(file);
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw err;
    }
  }
}

/** Writes `text` to `file` whole or not at all: a process killed mid-write must not leave half the user's text. */
function writeWhole(file: string, text: string): void {
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.partial`);
  fs.writeFileSync(partial, text, { mode: 0o600 });
  fs.renameSync(partial, file);
}

/** The user's edits to one open proposal, in a file of this process until they decide. */
export class ProposalDraft {
  private file: string | undefined;

  constructor(
    private readonly diffId: string,
    private readonly filePath: string,
  ) {}

  /** Saves `text` (the proposal as edited so far). False when it could not. */
  save(text: string): boolean {
    try {
      this.file ??= path.join(keptDirectory(), `draft-${process.pid}-${this.diffId.replace(/-/g, '').slice(0, 8)}-${proposalFileName(this.filePath)}`);
      writeWhole(this.file, text);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * This process is stopping with the proposal open: saves `text` and hands
   * the draft over to whichever companion claims it next (one starting, or one
   * running that watches); when `text` cannot be saved, the last draft saved
   * is handed over. False when `text` is not in a handed-over draft; drop()
   * no longer removes it.
   */
  handOver(text: string): boolean {
    const saved = this.save(text);
    const from = this.file;
    this.file = undefined;
    if (from === undefined) return false;
    try {
      fs.renameSync(from, path.join(path.dirname(from), path.basename(from).replace(/^draft-\d+-/, HANDED_OVER)));
      return saved;
    } catch {
      // Still there under this process's PID: found once the process has exited.
      return false;
    }
  }

  /** The user decided (or the proposal was kept another way): the draft goes. */
  drop(): void {
    if (this.file) fs.rmSync(this.file, { force: true });
    this.file = undefined;
  }
}

/** The private folder and its names; none when it cannot be made or read (nothing left behind to find). */
function keptNames(): { dir: string; names: string[] } {
  try {
    const dir = keptDirectory();
    return { dir, names: fs.readdirSync(dir) };
  } catch {
    return { dir: '', names: [] };
  }
}

/**
 * Drafts whose process died or that were handed over: each is renamed to an
 * ordinary kept file (so it is reported once) and its path returned.
 */
export function draftsLeftBehind(): string[] {
  const { dir, names } = keptNames();
  const found: string[] = [];
  for (const name of names) {
    const partial = PARTIAL.exec(name);
    if (partial && !isProcessAlive(Number(partial[1]))) fs.rmSync(path.join(dir, name), { force: true });
    const match = DRAFT.exec(name);
    if (!match || (match[1] !== 'left' && isProcessAlive(Number(match[1])))) continue;
    try {
      // A link, not a rename: a rename would replace a kept file of the same name.
      const from = path.join(dir, name);
      const kept = writeNew(dir, match[3]!, (file) => fs.linkSync(from, file));
      try {
        fs.unlinkSync(from);
        found.push(kept);
      } catch {
        fs.rmSync(kept, { force: true });
      }
    } catch {
      // Another companion starting at the same moment took it: it reports it.
    }
  }
  return found;
}

/**
 * Calls `onHandedOver` when a draft is handed over to the kept folder (another
 * companion stopped with the user's edits in a proposal). An inotify watch:
 * nothing runs while nothing happens. Undefined when the folder cannot be
 * watched (the next start still finds the drafts).
 */
export function watchDraftsHandedOver(onHandedOver: () => void): { close(): void } | undefined {
  try {
    const watcher = fs.watch(keptDirectory(), { persistent: false }, (_event, name) => {
      if (typeof name === 'string' && name.startsWith(HANDED_OVER)) onHandedOver();
    });
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return undefined;
  }
}

/** An accepted text the agent has not written yet: the file it is for, who proposed it, the text exactly. */
export interface AcceptedText {
  filePath: string;
  agent: string;
  content: string;
  /**
   * The accepted diff's id: the next companion shows the text under it, so an end that kept that very accept when
   * its host died (it had not heard the host take it) answers it as shown, and the user gets it once (issue 37).
   */
  diffId?: string;
}

/**
 * An accepted text in a file of this process (`accepted-PID-id.json`) until
 * drop(): what a companion killed before the agent wrote it leaves behind.
 * Saving is best effort: without it the text is still in this process's memory.
 */
export class AcceptedCopy {
  private file: string | undefined;

  constructor(accepted: AcceptedText) {
    try {
      const file = path.join(keptDirectory(), `accepted-${process.pid}-${randomBytes(4).toString('hex')}.json`);
      writeWhole(file, JSON.stringify(accepted));
      this.file = file;
    } catch {
      this.file = undefined;
    }
  }

  /** The file holds the text, or the memory of it ends: the copy goes. */
  drop(): void {
    if (this.file) fs.rmSync(this.file, { force: true });
    this.file = undefined;
  }
}

/** An accepted text a dead process left, claimed by this one; done() removes it once the user has it. */
export interface AcceptedLeft extends AcceptedText {
  done(): void;
}

/**
 * The accepted texts left by dead processes for files `wanted` (this
 * companion's workspace): each claimed by renaming it to this process's name
 * (two companions starting at once never both take one; this one dying before
 * done() leaves it for the next). Others are left for a companion of theirs.
 * An unreadable one is set aside as a kept file, never lost nor read again.
 */
export function acceptedLeftBehind(wanted: (filePath: string) => boolean): AcceptedLeft[] {
  const { dir, names } = keptNames();
  const found: AcceptedLeft[] = [];
  for (const name of names) {
    const match = ACCEPTED.exec(name);
    if (!match || isProcessAlive(Number(match[1]))) continue;
    const from = path.join(dir, name);
    let text: AcceptedText | undefined;
    try {
      text = parseAccepted(fs.readFileSync(from, 'utf8'));
    } catch {
      continue;
    }
    try {
      if (!text) {
        writeNew(dir, 'accepted-unreadable.json', (file) => fs.linkSync(from, file));
        fs.unlinkSync(from);
        continue;
      }
      if (!wanted(text.filePath)) continue;
      const claimed = path.join(dir, `accepted-${process.pid}-${match[2]}.json`);
      fs.renameSync(from, claimed);
      found.push({ ...text, done: () => fs.rmSync(claimed, { force: true }) });
    } catch {
      // Another companion starting at the same moment took it.
    }
  }
  return found;
}

function parseAccepted(json: string): AcceptedText | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { filePath, agent, content, diffId } = value as Record<string, unknown>;
  if (typeof filePath !== 'string' || !path.isAbsolute(filePath) || typeof agent !== 'string' || typeof content !== 'string') return undefined;
  // An odd id is dropped, not the text: it is shown under a new one.
  const id = typeof diffId === 'string' && diffId.length > 0 && diffId.length <= 200 ? diffId : undefined;
  return { filePath, agent, content, ...(id && { diffId: id }) };
}
