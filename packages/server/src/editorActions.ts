/**
 * What the companion asks of an editor: the action interface every editor end
 * implements (docs/editor-protocol.md). Diffs are required; every other action
 * is a capability, declared by implementing its method, and the companion
 * offers the MCP tool of the same name only for those.
 *
 * The user's decisions come back as editor events (`diffAccepted`,
 * `diffRejected`, see editorEvents.ts); `closeDiff` is called only for closes
 * the user did not ask for (closeDiff from the CLI, a replacing openDiff, the
 * CLI session going away, stop).
 */
import { CAPABILITIES, type ActionParams, type ActionResult, type Capability, type DiffCloseReason } from '@ide-companion/protocol';

export type { DiffCloseReason };

export interface PendingDiff {
  /** Unique per openDiff call. */
  readonly id: string;
  /** The path exactly as the CLI sent it; outcomes must echo it unchanged. */
  readonly filePath: string;
  /** The whole proposed file. */
  readonly newContent: string;
  /**
   * The file when the diff opened, undefined for a new file: read by the companion (regular files only), or, for a
   * CLI on another machine (`remote`), by the relay there.
   */
  readonly originalContent: string | undefined;
  /**
   * The file the agent writes is on another machine (an SSH remote's own checkout, sent up by the relay,
   * tools/openDiff.ts): its path there and that machine's name. The base is that file's; this machine's copy is
   * not written by the agent.
   */
  readonly remote?: { readonly path: string; readonly host: string };
  /** The CLI session that asked, which alone hears the outcome. */
  readonly sessionId: string;
  /** Who proposed it, as a user reads it ("Claude Code"): every end shows it. */
  readonly agent: string;
  readonly openedAt: number;
  /** Shown only to be kept at once (an accept its CLI never wrote): the end must not take the user's window or focus for it. */
  readonly kept?: boolean;
}

type MaybePromise<T> = T | Promise<T>;

/** The file a diff is about as the user reads it: its path, or `HOST:PATH` when the agent writes it on another machine. */
export function shownPathOf(diff: Pick<PendingDiff, 'filePath' | 'remote'>): string {
  if (!diff.remote) return diff.filePath;
  return diff.remote.host ? `${diff.remote.host}:${diff.remote.path}` : diff.remote.path;
}

export interface EditorActions {
  /** Shows the diff. Throwing (or rejecting) makes openDiff answer isError with the message. */
  showDiff(diff: PendingDiff, words?: ActionParams<'showDiff'>['words']): MaybePromise<void>;
  /** The proposal as the user has edited it so far; undefined means unchanged. */
  diffText(diff: PendingDiff): MaybePromise<string | undefined>;
  /** Closes the view without an outcome; `message`: what to show the user then (diffWords.ts), if anything. */
  closeDiff(diff: PendingDiff, reason: DiffCloseReason, message?: string): MaybePromise<void>;

  openFile?(params: ActionParams<'openFile'>): MaybePromise<void>;
  getOpenEditors?(): MaybePromise<ActionResult<'getOpenEditors'>>;
  getSelection?(): MaybePromise<ActionResult<'getSelection'>>;
  getDiagnostics?(params: ActionParams<'getDiagnostics'>): MaybePromise<ActionResult<'getDiagnostics'>>;
  checkDocumentDirty?(params: ActionParams<'checkDocumentDirty'>): MaybePromise<ActionResult<'checkDocumentDirty'>>;
  saveDocument?(params: ActionParams<'saveDocument'>): MaybePromise<ActionResult<'saveDocument'>>;
  /** Closes what `openFile` opened for `path` (unless it has unsaved changes): the path led elsewhere than the file checked. Goes with `openFile`. */
  closeFile?(params: ActionParams<'closeFile'>): MaybePromise<void>;
  /** Rereads the user's buffers of a file the agent wrote after an accept (diffCoordinator.ts). Declared by name (`reload`), no tool. */
  reload?(params: ActionParams<'reload'>): MaybePromise<void>;
  /**
   * An in-process end's own write of an agent's text into its document, as one undoable change, saved (VS Code; Amp's
   * editFile, `buffer` mode), asked after the companion's checks (bufferWrites.ts). Ends without it get the file
   * written by the companion and a `reload`.
   */
  writeBuffer?(params: ActionParams<'writeBuffer'>): MaybePromise<void>;
}

/** The capabilities an editor declares by implementing their methods. */
export function capabilitiesOf(editor: EditorActions | undefined): Capability[] {
  if (!editor) return [];
  return CAPABILITIES.filter((name) => typeof editor[name] === 'function');
}

export type DiffActions = Pick<EditorActions, 'showDiff' | 'diffText' | 'closeDiff'>;
export type CapabilityActions = Required<Pick<EditorActions, Capability>> & Pick<EditorActions, 'closeFile' | 'reload' | 'writeBuffer'>;

/**
 * An editor whose capabilities are the ones it declared (a script's or a
 * plugin's `hello.capabilities`): names this companion does not know are
 * ignored, so an editor newer than its host still works.
 */
export function editorWithCapabilities(diffs: DiffActions, all: CapabilityActions, declared: readonly string[]): EditorActions {
  const editor: EditorActions = { ...diffs };
  for (const name of CAPABILITIES) if (declared.includes(name)) Object.assign(editor, { [name]: all[name] });
  // closeFile goes with openFile (it takes back a swapped open); an editor that does not know it answers an error, which is logged.
  if (declared.includes('openFile') && all.closeFile) editor.closeFile = all.closeFile;
  // reload is no tool: an editor declares it by name, as it declares a capability.
  if (declared.includes('reload') && all.reload) editor.reload = all.reload;
  return editor;
}
