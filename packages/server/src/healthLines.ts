/**
 * The shared health report of every end: what a running host says about
 * itself in the editor's health check (Emacs's `M-x ide-companion-doctor`,
 * Vim's `:GeminiHealth`, Neovim's `:checkhealth`), written once. The host
 * checks its discovery file and socket itself, when it makes the report. The
 * editor adds only what must work when no host runs (its own runtime, Node.js,
 * the host file) and shows the items as they are: Neovim by level, the ends
 * that print lines through `healthLines`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DISCOVERY_FILE_PATTERN } from '@ide-companion/protocol';

export interface HealthItem {
  level: 'ok' | 'warn' | 'error' | 'info';
  text: string;
  /** What to do about it, a sentence each. */
  advice?: string[];
}

/** What the report reads of a running host. */
export interface HealthFacts {
  /** The end's `hello.ide` name ("emacs") and the name a user reads ("Emacs"). */
  ide: string;
  displayName: string;
  /** The host's pid, its port. */
  pid: number;
  port: number;
  /** The editor's pid, which the discovery file's name carries. */
  idePid?: number;
  workspacePath?: string;
  /** The agent of each connected session, as a user reads it ("Gemini CLI"). */
  sessions: readonly string[];
  /** The agents served. */
  agents: readonly string[];
  discoveryFile?: string;
  socketPath?: string;
  /** Set where a gemini beside the editor would dial host.docker.internal: its terminals get REMOTE_CONTAINERS=1 (server/terminalEnv.ts). */
  containerHint?: string;
  /** What the faces say of themselves (Companion.faceHealth: Codex CLI's router). */
  faces?: readonly HealthItem[];
}

/** Per end: where the user chooses the agents served, and how to restart the companion. */
const ENDS: Readonly<Record<string, { agents: string; restart: string }>> = {
  emacs: { agents: "`ide-companion-agents'", restart: 'M-x ide-companion-stop, then M-x ide-companion-start' },
  vim: { agents: 'g:ide_companion_agents', restart: ':GeminiStop, then :GeminiStart' },
  neovim: { agents: "setup's `agents`", restart: ':GeminiStop, then :GeminiStart' },
};

const isSocket = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isSocket() ?? false;

export function healthItems(f: HealthFacts): HealthItem[] {
  const end = ENDS[f.ide];
  const restart = end ? [`restart the companion: ${end.restart}`] : [];
  const n = f.sessions.length;
  const who = [...new Set(f.sessions)];
  const items: HealthItem[] = [
    { level: 'ok', text: `host running (pid ${f.pid}), port ${f.port}, ${n} CLI session${n === 1 ? '' : 's'}${who.length > 0 ? ` (${who.join(', ')})` : ''}` },
    { level: 'ok', text: `agents served: ${f.agents.join(', ')}${end ? ` (${end.agents} chooses)` : ''}` },
  ];
  const file = f.discoveryFile;
  const namedPid = file && DISCOVERY_FILE_PATTERN.exec(path.basename(file))?.[1];
  if (!file) items.push({ level: 'error', text: 'discovery file: none', advice: restart });
  else if (!fs.existsSync(file))
    items.push({ level: 'error', text: `discovery file ${file} is missing`, advice: [`the CLI cannot find this ${f.displayName}`, ...restart] });
  else if (f.idePid !== undefined && namedPid !== String(f.idePid))
    items.push({ level: 'warn', text: `discovery file ${file} names pid ${namedPid}, not this ${f.displayName} (${f.idePid})` });
  else items.push({ level: 'ok', text: `discovery file ${file}` });
  if (f.workspacePath !== undefined) items.push({ level: 'info', text: `workspace: ${f.workspacePath || 'none (no folder open)'}` });
  if (!f.socketPath) items.push({ level: 'warn', text: `no socket: gemini in a container or over SSH cannot reach this ${f.displayName}` });
  else if (!isSocket(f.socketPath))
    items.push({ level: 'error', text: `socket ${f.socketPath} is missing`, advice: [`gemini elsewhere cannot reach this ${f.displayName}`, ...restart] });
  else
    items.push({
      level: 'ok',
      text: `socket ${f.socketPath}: for gemini in a container, --sandbox or over SSH (ide-companion container, sandbox or ssh HOST)`,
    });
  items.push(...(f.faces ?? []));
  items.push(
    f.containerHint
      ? // No advice on an ok item: Neovim 0.7's health#report_ok takes none.
        {
          level: 'ok',
          text: `container: this ${f.displayName}'s terminals get REMOTE_CONTAINERS=1, so gemini there dials 127.0.0.1; in a shell it did not start, \`export REMOTE_CONTAINERS=1\` before gemini`,
        }
      : { level: 'ok', text: 'container: none, or REMOTE_CONTAINERS/SSH_CONNECTION set: gemini dials 127.0.0.1' },
  );
  return items;
}

const WORDS = { ok: 'ok  ', warn: 'WARN', error: 'FAIL', info: 'info' } as const;

/** The items as plain lines for the ends that print them: `ok`, `WARN`, `FAIL` or `info` padded to five characters, then the text; each advice on a line of its own below, indented. */
export function healthLines(items: readonly HealthItem[]): string[] {
  return items.flatMap((item) => [`${WORDS[item.level]} ${item.text}`, ...(item.advice ?? []).map((a) => `     ${a}`)]);
}
