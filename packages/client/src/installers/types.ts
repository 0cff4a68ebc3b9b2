/**
 * The contract every companion installer implements. An editor issue adds one
 * module under `installers/` exporting an `EditorInstaller` and one line in
 * `registry.ts`; `ide-companion install EDITOR` and `doctor` find it there.
 */

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
  /** Short, lower-case name used on the command line (`ide-companion install <id>`). */
  id: string;
  /** Human name, e.g. "Neovim". */
  displayName: string;
  /** True when this editor is present on the machine (binary on PATH, config dir...). */
  detect?(options?: InstallOptions): Promise<boolean>;
  install(options: InstallOptions): Promise<InstallResult>;
  /** True when the companion is already installed for this editor. */
  isInstalled?(options?: InstallOptions): Promise<boolean>;
}
