/**
 * What an editor end (editors/*) tells the `ide-companion` command about
 * itself: its installer and the commands it runs (`serve`, `bridge`). The command reaches every end through one
 * registry (packages/cli/src/editors.ts); nothing reaches into editors/ by path.
 */
import type { CommandSpec } from './commandSpec.js';

export interface InstallOptions {
  /** Environment to read (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** Working directory the user ran the command in. */
  cwd?: string;
  /** Print what would be done, change nothing. */
  dryRun?: boolean;
  /** Where progress lines go (one line per call, no trailing newline). */
  log?: (line: string) => void;
}

export interface InstallResult {
  success: boolean;
  /** One or more sentences a user can act on: what was done, or why it failed. */
  message: string;
  /** Files or directories the installer created or changed. */
  changed?: string[];
}

export interface EditorInstaller {
  /** True when this editor is present on the machine (binary on PATH, config dir...). */
  detect?(options?: InstallOptions): Promise<boolean>;
  /** What `install`'s list calls it and what `detect` finds, when it is no editor (`Gemini CLI extension`, `gemini`); default its display name, `editor`. */
  listed?: { name: string; found: string };
  install(options: InstallOptions): Promise<InstallResult>;
  /** True when the companion is already installed for this editor. */
  isInstalled?(options?: InstallOptions): Promise<boolean>;
  /** The version of what is installed (undefined: not installed, or too old to say): an upgrade warns when it differs. */
  installedVersion?(options?: InstallOptions): Promise<string | undefined>;
  /** Removes what `install` put in place, and nothing else. */
  uninstall?(options: InstallOptions): Promise<InstallResult>;
}

/** A subcommand an editor end runs (`ide-companion serve`, `ide-companion bridge`). */
export interface EditorCommand {
  /** Name, options, usage and exit codes (commandSpec.ts). */
  spec: CommandSpec;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

export interface EditorEnd {
  /** Short, lower-case name used on the command line (`ide-companion install <id>`); also its `ideInfo.name`. */
  id: string;
  /** Human name, e.g. "Neovim". */
  displayName: string;
  /** Other names of editors this end serves (forks), as IDE detection reports them: `doctor` suggests this end's installer for them. */
  aliases?: readonly string[];
  installer?: EditorInstaller;
  commands?: EditorCommand[];
  /** What `doctor` should know about this editor on this machine (e.g. a competing companion), one finding each. */
  doctorNotes?(env: NodeJS.ProcessEnv): DoctorNote[];
}

export interface DoctorNote {
  /** true: fine; false: a problem; undefined: for information. */
  ok: boolean | undefined;
  text: string;
  advice?: string;
}
