/**
 * Who we are in the discovery file (`/ide status` shows `displayName`) and
 * which PID to name there.
 */
import type { IdeInfo } from '@ide-companion/protocol';

/** VS Code and the forks the CLI knows by name; anything else keeps its app name. */
export function ideInfoFor(appName: string, appHost: string): IdeInfo {
  const app = appName.toLowerCase();
  if (app.includes('cursor')) return { name: 'cursor', displayName: 'Cursor' };
  if (app.includes('windsurf')) return { name: 'windsurf', displayName: 'Windsurf' };
  if (app.includes('vscodium')) return { name: 'vscodium', displayName: 'VSCodium' };
  if (app.includes('positron')) return { name: 'positron', displayName: 'Positron' };
  if (app.includes('trae')) return { name: 'trae', displayName: 'Trae' };
  if (app.includes('code-server') || (appHost === 'web' && app.includes('code'))) return { name: 'vscode', displayName: 'code-server' };
  if (/visual studio code|^code( - oss)?$/.test(app)) return { name: 'vscode', displayName: 'VS Code' };
  return { name: 'vscodefork', displayName: appName || 'VS Code' };
}

/**
 * The PID the CLI's process-tree walk lands on from an integrated terminal:
 * the grandparent of the terminal's shell, i.e. the process that started the
 * pty host. Desktop VS Code (and forks): the main process, which also started
 * this extension host. code-server and remote servers: the server process,
 * this extension host's parent too. Either way: our parent. Terminals also get
 * GEMINI_CLI_IDE_PID with this value, so the walk is only a fallback.
 */
export function idePidFor(parentPid: number, ownPid: number): number {
  return parentPid > 1 ? parentPid : ownPid;
}
