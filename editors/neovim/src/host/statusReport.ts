/**
 * What :GeminiStatus prints and what :checkhealth reports about a running
 * companion, made here and pushed to Neovim with every change (the Lua never
 * waits on the host: it shows the last report). What must work with no host
 * (Node found, the host file found) stays in health.lua.
 */
import * as path from 'node:path';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import type { SessionInfo } from '@ide-companion/server/sessions';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';

/** A :checkhealth line. `check`: what Neovim tests at report time (a file or socket there, its env set); failing it, `otherwise` is shown. */
export interface HealthItem {
  level: 'ok' | 'warn' | 'error' | 'info';
  text: string;
  advice?: string[];
  check?: { path: string; type: 'file' | 'socket' } | { env: Record<string, string> };
  otherwise?: HealthItem;
}

export interface StatusReport {
  /** :GeminiStatus, less the pending diffs (diff.lua lists its own). */
  lines: string[];
  health: HealthItem[];
}

/** What the report reads of a companion. */
export interface ReportedCompanion {
  port: number;
  idePid: number;
  discoveryFilePath: string | undefined;
  socketPath: string | undefined;
  workspacePath: string;
  containerHint: string | undefined;
  terminalEnv: Readonly<Record<string, string | undefined>>;
  agentNames: string[];
}

const PID_ENV = 'GEMINI_CLI_IDE_PID';
const PORT_ENV = 'GEMINI_CLI_IDE_SERVER_PORT';
const RESTART = 'run :GeminiStop and :GeminiStart';

export function sessionLine(session: SessionInfo): string {
  const agent = AGENT_DISPLAY_NAMES[session.agent];
  return `  ${agent}: ${session.clientName ?? 'unknown'} ${session.clientVersion ?? ''} (${session.streamOpen ? 'listening' : 'connecting'})`;
}

const sessionsConnected = (n: number) => `${n} CLI session${n === 1 ? '' : 's'} connected`;

export function statusReport(c: ReportedCompanion, sessions: readonly SessionInfo[]): StatusReport {
  const lines = [
    `ide-companion: running on 127.0.0.1:${c.port} (host pid ${process.pid})`,
    `workspace: ${c.workspacePath}`,
    `discovery file: ${c.discoveryFilePath}`,
    ...(c.socketPath ? [`socket: ${c.socketPath}`] : []),
    `agents: ${c.agentNames.join(', ')}`,
    sessionsConnected(sessions.length),
    ...sessions.map(sessionLine),
  ];
  return { lines, health: healthItems(c, sessions.length) };
}

function healthItems(c: ReportedCompanion, sessions: number): HealthItem[] {
  const items: HealthItem[] = [
    { level: 'ok', text: `Node.js ${process.version} (${process.execPath})` },
    { level: 'ok', text: `running on 127.0.0.1:${c.port}, host pid ${process.pid}, version ${COMPANION_VERSION}` },
  ];
  const file = c.discoveryFilePath;
  const missing: HealthItem = { level: 'error', text: `discovery file missing: ${file}`, advice: [`Gemini CLI cannot find this Neovim; ${RESTART}`] };
  const namedPid = file && /^gemini-ide-server-(\d+)-/.exec(path.basename(file))?.[1];
  if (!file) items.push(missing);
  else if (namedPid !== String(c.idePid)) items.push({ level: 'warn', text: `discovery file names pid ${namedPid}, not this Neovim (${c.idePid}): ${file}` });
  else items.push({ level: 'ok', text: `discovery file: ${file}`, check: { path: file, type: 'file' }, otherwise: missing });
  items.push({ level: 'info', text: `workspace: ${c.workspacePath}` });
  const pid = c.terminalEnv[PID_ENV] ?? '';
  items.push({
    level: 'ok',
    text: `terminals get ${PID_ENV}=${pid} and the port`,
    check: { env: { [PID_ENV]: pid, [PORT_ENV]: c.terminalEnv[PORT_ENV] ?? '' } },
    otherwise: { level: 'warn', text: 'the terminal environment is not set: gemini in :terminal may connect elsewhere' },
  });
  if (c.socketPath) {
    items.push({
      level: 'ok',
      text: `socket: ${c.socketPath}`,
      check: { path: c.socketPath, type: 'socket' },
      otherwise: { level: 'warn', text: `socket missing: ${c.socketPath}`, advice: [`gemini elsewhere cannot reach this Neovim; ${RESTART}`] },
    });
    items.push({
      level: 'info',
      text: 'gemini in a container, --sandbox or over SSH connects through it: `ide-companion container`, `sandbox` or `ssh HOST` (docs/remote.md)',
    });
  } else {
    items.push({ level: 'info', text: 'no socket (see :GeminiLog): gemini in a container or over SSH cannot reach this Neovim' });
  }
  if (c.containerHint) items.push({ level: 'warn', text: 'container: gemini would dial host.docker.internal', advice: [c.containerHint] });
  items.push({ level: 'info', text: `agents served: ${c.agentNames.join(', ')} (setup's \`agents\` chooses)` });
  items.push({ level: 'info', text: sessionsConnected(sessions) });
  return items;
}
