/**
 * Proposed edits in VS Code's native diff editor.
 *
 * Left: the file as it is on disk (`originalContent`; empty for a new file),
 * a read-only virtual document. Right: the proposal, an editable document of
 * an in-memory file system (`ide-companion-proposal:<file path>?<diff id>`),
 * so diffs of several CLI sessions never share a document. The diff's id is
 * the query, not a folder of the path: the breadcrumb shows the path's
 * folders, and began with a UUID (issue 30).
 *
 * The user decides with the title-bar buttons, the commands, Ctrl/Cmd+S in the
 * diff or a save they ask for (accept), or by closing its tab (reject); an
 * auto-save only stores the edits. Closing a proposal the user edited never
 * drops the edits unasked: VS Code asks to save a dirty one, and one whose
 * edits were auto-saved (so VS Code asks nothing) is asked about here: accept
 * with the edits, reject, or cancel (the proposal opens again as left). The outcome carries the
 * proposal as they left it: the document's text when they edited it, else the
 * proposal exactly as sent (so CRLF, mixed line endings, a BOM or a missing
 * final newline survive an unedited accept byte for byte).
 *
 * Focus: the diff opens with `preserveFocus`, so the terminal where gemini
 * runs keeps the keyboard; after a decision made in the diff, focus goes back
 * to the terminal that was active when the diff opened.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeError, type Logger } from '@ide-companion/server/logger';
import { type DiffActions, type DiffCloseReason, type PendingDiff } from '@ide-companion/server/editorActions';
import { draftsLeftBehind, ProposalDraft, watchDraftsHandedOver } from '@ide-companion/server/keptProposals';

export const ORIGINAL_SCHEME = 'ide-companion-original';
export const PROPOSAL_SCHEME = 'ide-companion-proposal';
/** Context key: some diff is waiting for a decision (command palette entries). */
export const DIFF_PENDING_KEY = 'ideCompanion.diffPending';
const BOM = '\uFEFF';

/** The user's decisions, as editor events (`diffAccepted`, `diffRejected`); false when the diff is no longer pending. */
export interface DiffDecisions {
  accept(diffId: string, content: string | undefined): boolean;
  reject(diffId: string): boolean;
}

interface Entry {
  diff: PendingDiff;
  originalUri: vscode.Uri;
  proposalUri: vscode.Uri;
  original: string;
  /** The proposal document's text right after it opened; a different text means the user edited it. */
  initialText: string | undefined;
  /** The terminal that had the keyboard when the diff opened. */
  terminal: vscode.Terminal | undefined;
  /** Set while we save or close the view ourselves: writes are then not a decision. */
  closing: boolean;
  /** The user asked for this save (File > Save, "Save" when closing the tab): its write accepts. */
  manualSave: boolean;
  /** The proposal's text as last seen in its document: what a closed tab leaves when the document went with it. */
  lastText: string | undefined;
  /** Set while the user is asked what to do with the edits of a proposal whose tab they closed. */
  asking: boolean;
  /** The user's edits, in a private file until they decide: the document dies with a killed extension host. */
  draft: ProposalDraft;
  draftTimer: ReturnType<typeof setTimeout> | undefined;
}

const ACCEPT_EDITS = 'Accept with My Edits';
const REJECT = 'Reject';

/** How often, and how many times, showDiff looks for the diff's tab before vscode.diff resolves. */
const SHOWN_POLL_MS = 50;
const SHOWN_POLLS = 400;
/** How long typing may pause before the edits are saved to the draft. */
const DRAFT_DELAY_MS = 300;

/** One proposal's bytes in the in-memory file system; outlives its diff until VS Code closes the document. */
interface MemoryFile {
  /** Its URI's path (folders are the prefixes of the files' paths). */
  path: string;
  bytes: Uint8Array;
  ctime: number;
  mtime: number;
}

function uriFor(scheme: string, diffId: string, filePath: string): vscode.Uri {
  return vscode.Uri.from({ scheme, path: vscode.Uri.file(filePath).path, query: diffId });
}

function diffIdOf(uri: vscode.Uri): string | undefined {
  return uri.query || undefined;
}

/** A proposal file's key: its diff and its path. */
function fileKey(uri: vscode.Uri): string {
  return `${uri.query}:${uri.path}`;
}

export class VsCodeDiffs implements DiffActions, vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  /** The proposal file system's files, by URI path. */
  private readonly files = new Map<string, MemoryFile>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changeEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly decisions: DiffDecisions,
    private readonly logger: Logger,
  ) {
    const entries = this.entries;
    this.disposables.push(
      this.changeEmitter,
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, {
        provideTextDocumentContent: (uri) => entries.get(diffIdOf(uri) ?? '')?.original ?? '',
      }),
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this.proposalFileSystem(), { isCaseSensitive: true }),
      vscode.window.tabGroups.onDidChangeTabs((e) => this.tabsClosed(e.closed)),
      vscode.workspace.onWillSaveTextDocument((e) => {
        if (e.document.uri.scheme !== PROPOSAL_SCHEME || e.reason !== vscode.TextDocumentSaveReason.Manual) return;
        const entry = this.entries.get(diffIdOf(e.document.uri) ?? '');
        if (entry && !entry.closing) entry.manualSave = true;
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document.uri.scheme === PROPOSAL_SCHEME) this.files.delete(fileKey(document.uri));
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme !== PROPOSAL_SCHEME || e.contentChanges.length === 0) return;
        const entry = this.entries.get(diffIdOf(e.document.uri) ?? '');
        if (entry) entry.lastText = e.document.getText();
        if (entry && !entry.closing) this.scheduleDraft(entry);
      }),
    );
  }

  get pending(): PendingDiff[] {
    return [...this.entries.values()].map((e) => e.diff);
  }

  // ---- the companion asks --------------------------------------------------

  async showDiff(diff: PendingDiff): Promise<void> {
    const entry: Entry = {
      diff,
      originalUri: uriFor(ORIGINAL_SCHEME, diff.id, diff.filePath),
      proposalUri: uriFor(PROPOSAL_SCHEME, diff.id, diff.filePath),
      original: diff.originalContent ?? '',
      initialText: undefined,
      lastText: undefined,
      asking: false,
      terminal: vscode.window.activeTerminal,
      closing: false,
      manualSave: false,
      draft: new ProposalDraft(diff.id, diff.filePath),
      draftTimer: undefined,
    };
    this.files.set(fileKey(entry.proposalUri), {
      path: entry.proposalUri.path,
      bytes: this.encoder.encode(diff.newContent),
      ctime: Date.now(),
      mtime: Date.now(),
    });
    this.entries.set(diff.id, entry);
    this.updateContextKey();
    const name = path.basename(diff.filePath);
    const title = `${name} ↔ ${diff.agent}'s proposal${diff.originalContent === undefined ? ' (new file)' : ''}`;
    let settled = false;
    const opening = Promise.resolve(
      vscode.commands.executeCommand('vscode.diff', entry.originalUri, entry.proposalUri, title, {
        preserveFocus: true,
        preview: false,
        viewColumn: this.columnBesideTerminal(),
      }),
    ).finally(() => (settled = true));
    try {
      // vscode.diff resolves only once the diff is computed, which for a long changed line takes up to VS Code's
      // diffEditor.maxComputationTime (5 s): the diff is shown, and the agent answered, once its tab and proposal are.
      await Promise.race([opening, this.untilShown(entry, () => settled)]);
    } catch (err) {
      this.entries.delete(diff.id);
      this.updateContextKey();
      throw err;
    }
    opening.catch((err: unknown) => this.logger.warn('the diff view failed after it was shown', { filePath: diff.filePath, error: describeError(err) }));
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === entry.proposalUri.toString());
    entry.initialText = document?.getText();
    this.warnIfDirty(diff.filePath);
  }

  /** The proposal as the user edited it, or undefined when unchanged. */
  diffText(diff: PendingDiff): string | undefined {
    const entry = this.entries.get(diff.id);
    return entry ? this.editedText(entry) : undefined;
  }

  /**
   * Closes the view without an outcome (closeDiff, a replacing diff, the
   * session gone). When its CLI went away (exited or died), nobody can take an
   * answer, but the proposal (and the user's edits in it) stays for the user,
   * in an untitled editor.
   */
  async closeDiff(diff: PendingDiff, reason: DiffCloseReason): Promise<void> {
    const entry = this.entries.get(diff.id);
    if (!entry) return;
    this.logger.info('closing diff view', { filePath: diff.filePath, reason });
    // The document may have gone with its tab (the user is being asked about their edits): its last text then.
    const kept = reason === 'sessionClosed' ? (this.documentOf(entry)?.getText() ?? entry.lastText ?? diff.newContent) : undefined;
    // The companion stops (window closed or reloaded, or turned off) with the user's edits in it: its document goes
    // with this extension host, so the edits are handed over in their draft, which the next companion opens.
    const edits = reason === 'companionStopped' ? this.asEdits(entry, this.documentOf(entry)?.getText() ?? entry.lastText) : undefined;
    if (edits !== undefined && !entry.draft.handOver(edits)) this.logger.warn('could not keep the edits to a proposal', { filePath: diff.filePath });
    await this.closeView(entry, false);
    if (kept === undefined) return;
    const language = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === diff.filePath)?.languageId;
    const document = await vscode.workspace.openTextDocument({ content: kept, ...(language ? { language } : {}) });
    await vscode.window.showTextDocument(document, { preview: false, preserveFocus: true });
    void vscode.window.showWarningMessage(
      `The ${diff.agent} session that proposed ${path.basename(diff.filePath)} went away; the proposal is kept in an untitled editor ("Save As" keeps it).`,
    );
  }

  // ---- the user decides ----------------------------------------------------

  /** Accepts the diff shown in `target` (a proposal/original URI from a menu), else the active one. */
  async accept(target?: unknown): Promise<boolean> {
    const entry = this.resolve(target);
    if (!entry) return this.nothingPending('accept');
    const content = this.editedText(entry);
    if (!this.decisions.accept(entry.diff.id, content)) return false;
    await this.closeView(entry, true);
    return true;
  }

  async reject(target?: unknown): Promise<boolean> {
    const entry = this.resolve(target);
    if (!entry) return this.nothingPending('reject');
    if (!this.decisions.reject(entry.diff.id)) return false;
    await this.closeView(entry, true);
    return true;
  }

  /** Reveals a pending diff (status bar quick pick). */
  async reveal(diffId: string): Promise<void> {
    const entry = this.entries.get(diffId);
    if (!entry) return;
    const name = path.basename(entry.diff.filePath);
    await vscode.commands.executeCommand('vscode.diff', entry.originalUri, entry.proposalUri, `${name} ↔ ${entry.diff.agent}'s proposal`, { preview: false });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const entry of this.entries.values()) clearTimeout(entry.draftTimer);
    this.entries.clear();
  }

  // ---- internals -----------------------------------------------------------

  private editedText(entry: Entry): string | undefined {
    const document = this.documentOf(entry);
    return document ? this.asEdits(entry, document.getText()) : undefined;
  }

  /** `text` as the proposal's edited text, or undefined when it is the proposal as sent. */
  private asEdits(entry: Entry, text: string | undefined): string | undefined {
    if (text === undefined || entry.initialText === undefined || text === entry.initialText) return undefined;
    // VS Code hides a BOM from the text; keep the proposal's.
    return entry.diff.newContent.startsWith(BOM) && !text.startsWith(BOM) ? BOM + text : text;
  }

  /**
   * Resolves once `entry`'s tab and proposal document are open, or it is no longer pending (decided or closed while
   * opening: vscode.diff then never resolves). Bounded: after that, only vscode.diff's own end counts.
   */
  private async untilShown(entry: Entry, settled: () => boolean): Promise<void> {
    for (let i = 0; i < SHOWN_POLLS && !settled(); i++) {
      if (!this.entries.has(entry.diff.id) || (this.documentOf(entry) && this.tabsOf(entry).length > 0)) return;
      await new Promise((resolve) => setTimeout(resolve, SHOWN_POLL_MS));
    }
    if (!settled()) await new Promise(() => undefined);
  }

  private scheduleDraft(entry: Entry): void {
    clearTimeout(entry.draftTimer);
    entry.draftTimer = setTimeout(() => {
      entry.draftTimer = undefined;
      if (!this.entries.has(entry.diff.id)) return;
      const text = this.editedText(entry);
      if (text === undefined) entry.draft.drop();
      else entry.draft.save(text);
    }, DRAFT_DELAY_MS);
  }

  private documentOf(entry: Entry): vscode.TextDocument | undefined {
    const key = entry.proposalUri.toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  }

  private resolve(target: unknown): Entry | undefined {
    if (target instanceof vscode.Uri) {
      const id = diffIdOf(target);
      if (id && (target.scheme === PROPOSAL_SCHEME || target.scheme === ORIGINAL_SCHEME)) return this.entries.get(id);
    }
    if (typeof target === 'string') return this.entries.get(target);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSAL_SCHEME) {
      const entry = this.entries.get(diffIdOf(input.modified) ?? '');
      if (entry) return entry;
    }
    return this.entries.size === 1 ? [...this.entries.values()][0] : undefined;
  }

  private nothingPending(what: string): boolean {
    void vscode.window.showInformationMessage(
      this.entries.size === 0 ? 'No Gemini CLI diff is waiting.' : `Several Gemini CLI diffs are waiting: focus the one to ${what}.`,
    );
    return false;
  }

  private tabsOf(entry: Entry): vscode.Tab[] {
    const key = entry.proposalUri.toString();
    return vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === key));
  }

  /** Closes the diff's tabs without a save prompt; refocuses the gemini terminal if the user decided here. */
  private async closeView(entry: Entry, refocus: boolean): Promise<void> {
    entry.closing = true;
    clearTimeout(entry.draftTimer);
    entry.draft.drop();
    try {
      const document = this.documentOf(entry);
      // Saving into our in-memory file makes the proposal clean, so closing asks nothing.
      if (document?.isDirty) await document.save();
      const tabs = this.tabsOf(entry);
      if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    } catch (err) {
      this.logger.warn('could not close the diff view', { filePath: entry.diff.filePath, error: describeError(err) });
    } finally {
      this.entries.delete(entry.diff.id);
      this.updateContextKey();
    }
    if (refocus && entry.terminal && vscode.window.terminals.includes(entry.terminal)) entry.terminal.show(false);
  }

  /** A diff tab closed by the user is a rejection (once no other tab shows that diff). */
  private tabsClosed(closed: readonly vscode.Tab[]): void {
    for (const tab of closed) {
      if (!(tab.input instanceof vscode.TabInputTextDiff) || tab.input.modified.scheme !== PROPOSAL_SCHEME) continue;
      const entry = this.entries.get(diffIdOf(tab.input.modified) ?? '');
      if (!entry || entry.closing || entry.asking || this.tabsOf(entry).length > 0) continue;
      // Edits VS Code did not ask about (auto-saved, so the tab was clean): asked about here, never dropped unasked.
      const edits = this.asEdits(entry, this.documentOf(entry)?.getText() ?? entry.lastText);
      if (edits !== undefined) {
        void this.askAboutEdits(entry, edits);
        continue;
      }
      this.logger.info('diff tab closed by the user: rejected', { filePath: entry.diff.filePath });
      clearTimeout(entry.draftTimer);
      entry.draft.drop();
      this.entries.delete(entry.diff.id);
      this.updateContextKey();
      this.decisions.reject(entry.diff.id);
      if (entry.terminal && vscode.window.terminals.includes(entry.terminal)) entry.terminal.show(false);
    }
  }

  /** The user closed a proposal they had edited: accept with the edits, reject, or (cancelled) the proposal opens again as they left it. */
  private async askAboutEdits(entry: Entry, edits: string): Promise<void> {
    entry.asking = true;
    let choice: string | undefined;
    try {
      choice = await vscode.window.showWarningMessage(
        `You edited ${entry.diff.agent}'s proposal for ${path.basename(entry.diff.filePath)}. Accept it with your edits?`,
        { modal: true, detail: 'Reject drops your edits. Cancel opens the proposal again as you left it.' },
        ACCEPT_EDITS,
        REJECT,
      );
    } finally {
      entry.asking = false;
    }
    // Decided elsewhere meanwhile (the CLI closed the diff, or its session ended).
    if (this.entries.get(entry.diff.id) !== entry) return;
    if (choice === ACCEPT_EDITS) {
      this.logger.info('an edited proposal closed by the user: accepted with the edits', { filePath: entry.diff.filePath });
      if (this.decisions.accept(entry.diff.id, edits)) await this.closeView(entry, true);
    } else if (choice === REJECT) {
      this.logger.info('an edited proposal closed by the user: rejected', { filePath: entry.diff.filePath });
      if (this.decisions.reject(entry.diff.id)) await this.closeView(entry, true);
    } else {
      // Its document may have gone with the tab: it opens again from the edits.
      if (!this.documentOf(entry))
        this.files.set(fileKey(entry.proposalUri), { path: entry.proposalUri.path, bytes: this.encoder.encode(edits), ctime: Date.now(), mtime: Date.now() });
      await this.reveal(entry.diff.id);
    }
  }

  /** When gemini runs in a terminal tab of the editor area, the diff opens beside it rather than over it. */
  private columnBesideTerminal(): vscode.ViewColumn {
    const active = vscode.window.tabGroups.activeTabGroup.activeTab;
    return active?.input instanceof vscode.TabInputTerminal ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
  }

  private warnIfDirty(filePath: string): void {
    const key = vscode.Uri.file(filePath).toString();
    const own = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (!own?.isDirty) return;
    void vscode.window.showWarningMessage(
      `${path.basename(filePath)} has unsaved changes. The proposal is based on the file on disk; if you accept, Gemini CLI writes the file and your unsaved changes stay in the editor (VS Code asks you to compare or overwrite when you save).`,
    );
  }

  private updateContextKey(): void {
    void vscode.commands.executeCommand('setContext', DIFF_PENDING_KEY, this.entries.size > 0);
  }

  /**
   * The proposals' in-memory file system. A write is a save: auto-save (after
   * a delay, on focus change) only stores the text, since a pause in typing is
   * no decision; a save the user asked for accepts. Folders exist as the
   * prefixes of the files, so VS Code's save (which checks the parent) works.
   */
  private proposalFileSystem(): vscode.FileSystemProvider {
    const fileOf = (uri: vscode.Uri): MemoryFile => {
      const file = this.files.get(fileKey(uri));
      if (!file) throw vscode.FileSystemError.FileNotFound(uri);
      return file;
    };
    const isFolder = (uri: vscode.Uri) => {
      const prefix = uri.path.endsWith('/') ? uri.path : `${uri.path}/`;
      return [...this.files.values()].some((f) => f.path.startsWith(prefix));
    };
    const readOnly = (uri: vscode.Uri): never => {
      throw vscode.FileSystemError.NoPermissions(uri);
    };
    return {
      onDidChangeFile: this.changeEmitter.event,
      watch: () => new vscode.Disposable(() => undefined),
      stat: (uri) => {
        const file = this.files.get(fileKey(uri));
        if (file) return { type: vscode.FileType.File, ctime: file.ctime, mtime: file.mtime, size: file.bytes.byteLength };
        if (isFolder(uri)) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
        throw vscode.FileSystemError.FileNotFound(uri);
      },
      readFile: (uri) => fileOf(uri).bytes,
      writeFile: (uri, content) => {
        const file = this.files.get(fileKey(uri));
        if (!file) return readOnly(uri);
        file.bytes = content;
        file.mtime = Date.now();
        const entry = this.entries.get(diffIdOf(uri) ?? '');
        if (!entry || entry.closing || !entry.manualSave) return;
        entry.manualSave = false;
        // The save accepts: a tab closing with it ("Save" when closing) is no question about the edits.
        entry.closing = true;
        // After the save completes, so closing the view finds the document clean.
        setTimeout(() => void this.accept(entry.diff.id), 0);
      },
      readDirectory: () => [],
      createDirectory: readOnly,
      delete: readOnly,
      rename: readOnly,
    };
  }
}

/**
 * How long a running window leaves edits handed over by another one (closed,
 * or reloading) for that window's next start to open, before it opens them.
 */
export const HANDOVER_CLAIM_DELAY_MS = 10_000;

/**
 * Edits handed over while this window runs (another window closed, or its own
 * previous extension host finished stopping after this one started): opened
 * here unless a starting window took them first, and only while this window
 * has the focus (else when it gets it): they come up where the user is, not
 * in a window in the background.
 */
export function openDraftsHandedOver(logger: Logger): vscode.Disposable {
  let handedOverAt: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const claimSoon = () => {
    if (handedOverAt === undefined || timer !== undefined || !vscode.window.state.focused) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        handedOverAt = undefined;
        void openDraftsLeftBehind(logger);
      },
      Math.max(0, handedOverAt + HANDOVER_CLAIM_DELAY_MS - Date.now()),
    );
  };
  const watcher = watchDraftsHandedOver(() => {
    // Counted from the latest handover, so each one leaves its own window the time to start.
    handedOverAt = Date.now();
    clearTimeout(timer);
    timer = undefined;
    claimSoon();
  });
  if (!watcher) logger.warn('cannot watch for edits other windows leave; the next start opens them');
  const focus = vscode.window.onDidChangeWindowState((state) => {
    if (state.focused) claimSoon();
  });
  return new vscode.Disposable(() => {
    clearTimeout(timer);
    watcher?.close();
    focus.dispose();
  });
}

/**
 * The user's edits to proposals an extension host had open when it died (or
 * stopped): opened for the user, with one line saying where they are kept.
 */
export async function openDraftsLeftBehind(logger: Logger): Promise<void> {
  const kept = draftsLeftBehind();
  if (kept.length === 0) return;
  logger.warn('edits to proposals left by a companion that stopped are kept', { files: kept.length });
  for (const file of kept) {
    try {
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false, preserveFocus: true });
    } catch (err) {
      logger.warn('could not open a kept proposal', { error: describeError(err) });
    }
  }
  void vscode.window.showWarningMessage(
    `Your edits to ${kept.length === 1 ? 'a proposal' : `${kept.length} proposals`} open when the companion stopped are kept in ${kept.map((f) => path.basename(f)).join(', ')} (${path.dirname(kept[0]!)}): copy what you want over the file.`,
  );
}
