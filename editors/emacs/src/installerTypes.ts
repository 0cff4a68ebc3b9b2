/**
 * The installer contract (packages/server/src/editorEnd.ts once the editor
 * seam lands on main; until then a copy of its shape).
 */
export interface InstallOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  dryRun?: boolean;
  log?: (line: string) => void;
}

export interface InstallResult {
  success: boolean;
  message: string;
  changed?: string[];
}

export interface EditorInstaller {
  detect?(options?: InstallOptions): Promise<boolean>;
  install(options: InstallOptions): Promise<InstallResult>;
  isInstalled?(options?: InstallOptions): Promise<boolean>;
}
