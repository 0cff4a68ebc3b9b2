/**
 * An end, as the conformance suite sees it: how to start it in a temp
 * workspace, what a user does in it (open a file, move the cursor, select,
 * edit a proposal, accept, reject), and how to read its state. Each end's
 * `conformance.test.ts` writes one driver; the scenarios are written once
 * (scenarios.ts) and never name an end.
 *
 * What an end cannot do is not left out silently: every optional action the
 * driver lacks needs a reason in `unsupported`, and the suite reports each
 * scenario that needs it as skipped with that reason (a driver missing an
 * action without a reason fails the suite).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DiscoveryFile } from '@ide-companion/protocol';
import type { TypingUi } from '../geminiTui.js';

/** A place in a file, 1-based, `character` counted in characters (not bytes or UTF-16 units). */
export interface Position {
  line: number;
  character: number;
}

export interface Selection {
  /** The first selected character. */
  start: Position;
  /** Just after the last selected character (half-open, as VS Code and Emacs count; a Vim driver selects up to the character before). */
  end: Position;
  /** The cursor ends at `start` (made upward or leftward) instead of at the end. */
  backward: boolean;
}

/** How the user ends a diff the agent opened: accepts it, rejects it, closes its tab or window, or answers the agent's own question in its terminal. */
export type DiffEnding = 'accept' | 'reject' | 'close' | 'agentAnswer';

/**
 * The agent's terminal inside the end (`:Gemini`, `M-x ide-companion-gemini`,
 * "Gemini CLI: Run") with the real CLI running in it. `type`, `keys` and
 * `screen` are the user's keys where the keyboard is now (never moving it)
 * and what the agent shows.
 */
export interface AgentTerminal extends TypingUi {
  /** The keyboard is in the agent's terminal, in the mode where typing reaches the agent. */
  hasKeyboard(): Promise<boolean>;
  /** Where the keyboard is, and the screen, for a failure's message. */
  where(): Promise<string>;
  /** The end's own checks once the diff of `file` is shown, before the user acts (where the keyboard went, the tab's label). */
  diffShown(file: string): Promise<void>;
  /** The user ends the diff of `file` with the end's own keys for `how` (going to the proposal first, as the end's user does). */
  endDiff(file: string, how: DiffEnding): Promise<void>;
  /** The end's own checks once the diff has ended (before the next prompt). */
  afterEnd?(file: string, how: DiffEnding): Promise<void>;
  /** Ends the agent and closes its terminal. */
  close(): Promise<void>;
}

/** What an end's agent terminal offers the scenarios (agentTerminal.ts). */
export interface AgentTerminalSupport {
  /** The ways the end's user ends a diff, each with the keys as the user types them (for the test's name). */
  readonly endings: Partial<Record<DiffEnding, string>>;
  /** The kinds of terminal the end runs the agent in (Emacs: term, vterm), each with why it cannot run here (skipUnless) or false. */
  readonly variants: Readonly<Record<string, string | false>>;
  /**
   * The end's state is not read between the user's ending keys and the next
   * prompt typed: a read wakes the editor's main loop (Vim's channel), which
   * the user's idle editor does not get. The keyboard is then checked after
   * the prompt reached the agent.
   */
  readonly quietAfterEnd?: boolean;
}

/**
 * Every agent's folder under `root`, so that the end serves every face, and a HOME with a `.factory` in it
 * (Droid's lock folder is $HOME/.factory/ide: the user has Droid): the variables the end runs with, and the
 * session's fields that name them.
 */
export function agentFolders(root: string) {
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, '.factory'), { recursive: true });
  const session = {
    qwenHome: path.join(root, 'qwen'),
    claudeConfigDir: path.join(root, 'claude'),
    ampDataHome: path.join(root, 'amp'),
    copilotHome: path.join(root, 'copilot'),
    codexHome: path.join(root, 'codex'),
    factoryHome: home,
  };
  const env = {
    HOME: home,
    QWEN_HOME: session.qwenHome,
    CLAUDE_CONFIG_DIR: session.claudeConfigDir,
    AMP_DATA_HOME: session.ampDataHome,
    COPILOT_HOME: session.copilotHome,
    CODEX_HOME: session.codexHome,
  };
  return { env, session };
}

/** One running end: an editor (or `serve`, or a scripted bridge) with its companion, in a workspace of its own. */
export interface EndSession {
  /** The workspace folder, a real path. */
  readonly workspace: string;
  /** The TMPDIR the end runs with: its discovery file is in `TMPDIR/gemini/ide`. */
  readonly tmpdir: string;
  /** Where the end writes Qwen Code's lock files (QWEN_HOME) and Claude Code's (CLAUDE_CONFIG_DIR). */
  readonly qwenHome: string;
  readonly claudeConfigDir: string;
  /** Where the end writes Amp's lock files (AMP_DATA_HOME: `DIR/amp/ide`) and Copilot CLI's (COPILOT_HOME: `DIR/ide`), and owns Codex CLI's socket (CODEX_HOME: `DIR/ipc/ipc.sock`). */
  readonly ampDataHome: string;
  readonly copilotHome: string;
  readonly codexHome: string;
  /** The HOME the end's companion runs with, a folder of the session's own with a `.factory` in it: Droid's lock files are in `DIR/.factory/ide` (undefined where 'faces:droid' is declared unsupported). */
  readonly factoryHome?: string;
  /** The current discovery file (its path and content); waits for it, bounded. A restarted host has a new one. */
  discovery(): Promise<{ path: string; content: DiscoveryFile }>;

  /** The user makes `file` (absolute, in the workspace) the active file: opens it, or saves it where saving is the only signal (`serve`). */
  open(file: string): Promise<void>;
  /** The user moves the cursor in the active file. */
  moveCursor?(position: Position): Promise<void>;
  /** The user selects in the active file. */
  select?(selection: Selection): Promise<void>;

  /** The proposal the end shows for `file`, once shown (its text as the user sees it). */
  shownProposal(file: string): Promise<string>;
  /** The user replaces the proposal's text with `text` before deciding. */
  editProposal?(file: string, text: string): Promise<void>;
  /** The user accepts the proposal of `file` (with its edits, if any). */
  accept(file: string): Promise<void>;
  /** The user rejects it. */
  reject(file: string): Promise<void>;
  /** Whether the end still shows a proposal for `file`. */
  showsProposal(file: string): Promise<boolean>;

  /** The active file and cursor as the editor has them (the optional-argument rows check openFile with it). */
  cursor?(): Promise<{ path: string; line: number; character: number }>;
  /** Puts a warning on line 1 of `file`, as a linter would (the diagnostics rows then expect it). */
  setWarning?(file: string): Promise<void>;
  /** "Send to agent" with lines `startLine` to `endLine` (1-based) of `file` selected (`:GeminiSend`, the command): the agents' mention. */
  mention?(file: string, startLine: number, endLine: number): Promise<void>;
  /** The text the editor holds for `file` (its buffer or document, saved or not); undefined when it holds none. */
  bufferText?(file: string): Promise<string | undefined>;
  /** The user undoes the last change in the editor's buffer of `file` (`u`, `C-/`, Ctrl+Z), leaving it unsaved. */
  undo?(file: string): Promise<void>;
  /** The user rereads `file` into its buffer from disk, dropping unsaved changes (`:edit!`, `revert-buffer`). */
  revert?(file: string): Promise<void>;
  /** The user rereads `file` into its buffer (as `revert`) and makes that buffer read-only (`:setlocal readonly`, `read-only-mode`). */
  setReadOnly?(file: string): Promise<void>;
  /** The next time the editor opens `file`, `swap` is renamed over it as the editor starts reading (a racing process at the worst moment, made deterministic). */
  swapOnOpen?(file: string, swap: string): Promise<void>;

  /** The agents the end itself shows as connected now (from its status command or line; not the ones it serves). */
  agentStatus?(): Promise<string>;
  /** Kills the companion's process with SIGKILL (for Neovim, Vim and Emacs their host; `serve` and the bridge themselves). */
  killHost?(): Promise<void>;
  /** Runs the end's command for the agent's terminal with `command` (an executable) as the agent, in terminal kind `variant`. */
  startAgentTerminal?(command: string, variant: string): Promise<AgentTerminal>;
  /** Answers when the editor itself answers (a state read); rejects if it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The actions a scenario may need beyond the ones every end has. */
export type EndAction =
  | 'moveCursor'
  | 'select'
  | 'editProposal'
  | 'cursor'
  | 'killHost'
  | 'agentStatus'
  | 'faces:qwen'
  | 'faces:claude'
  /** Factory Droid's face: the session's `factoryHome`. */
  | 'faces:droid'
  | 'capabilityTools'
  | 'agentTerminal'
  | 'setWarning'
  | 'mention'
  /** `swapOnOpen`, and `bufferText` to see the end closed what it opened. */
  | 'swapOnOpen'
  /** A second session whose Amp face writes editFile through the editor's buffer (`bufferText` and `undo` with it). */
  | 'ampBuffer'
  /** In the Amp buffer-mode scenario: a read-only buffer refuses the write (`setReadOnly`). */
  | 'readOnlyBuffer'
  /** In the Amp buffer-mode scenario: a buffer whose file changed on disk since the editor read it refuses the write (`revert`). */
  | 'changedOnDisk';

/** How a session is started beyond its files. */
export interface StartOptions {
  /** Amp's editFile through the editor's buffer (the end's own setting for it) instead of its review. */
  ampEditFile?: 'buffer';
}

export interface EndDriver {
  /** The end's name, as the suite prints it (`neovim`, `terminal`, ...). */
  readonly name: string;
  /** The name an agent's `/ide` shows for this end (its discovery file's ideInfo.displayName). */
  readonly displayName: string;
  /** Every optional action this end does not have, with why. */
  readonly unsupported: Partial<Record<EndAction, string>>;
  /** What the end does for some agents and not others (by the face table's name, then `mention`, `diagnostics`, `diffs`, `wrongToken`), with why. */
  readonly unsupportedForFace?: Readonly<Record<string, Partial<Record<string, string>>>>;
  /** Where the end of a line is when the cursor is sent there: Vim and Neovim rest on its last character, Emacs and VS Code after it. */
  readonly endOfLine: 'onLastCharacter' | 'afterLastCharacter';
  /** After `killHost`, the editor starts a new companion (Neovim, Vim, Emacs); `serve` and the bridge are the companion. */
  readonly restartsHost: boolean;
  /** The agent's terminal, where the end has one (else `agentTerminal` in `unsupported`). */
  readonly agentTerminal?: AgentTerminalSupport;
  /** Starts the end in a fresh workspace holding `files`; the session is closed by the suite. */
  start(files: Record<string, string>, options?: StartOptions): Promise<EndSession>;
  /** Called once when the suite ends (a shared code-server, say). */
  dispose?(): Promise<void>;
}
