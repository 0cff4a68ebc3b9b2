/**
 * Finding the IDE's PID the way the real Gemini CLI does (process-utils.js):
 * `GEMINI_CLI_IDE_PID` when set; otherwise walk up from this process to the
 * first shell ancestor and take that shell's grandparent (the shell's parent
 * is often a pty helper). On Linux we read /proc directly instead of spawning
 * `ps` once per ancestor; macOS uses `ps`; Windows takes one process snapshot
 * and picks the third process from the root, as the CLI does.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ENV } from '@ide-companion/protocol';

/** `ps` or PowerShell; child_process is loaded only where they run (Linux reads /proc). */
async function execFileAsync(file: string, args: string[], options: { timeout: number; maxBuffer?: number }): Promise<{ stdout: string }> {
  const [{ execFile }, { promisify }] = await Promise.all([import('node:child_process'), import('node:util')]);
  return promisify(execFile)(file, args, { ...options, encoding: 'utf8' });
}

/** The CLI gives up after this many ancestors. */
export const MAX_TRAVERSAL_DEPTH = 32;
/** Names the CLI treats as shells (exact match on the basename of argv[0]). */
export const SHELL_NAMES: readonly string[] = ['zsh', 'bash', 'sh', 'tcsh', 'csh', 'ksh', 'fish', 'dash'];

export interface ProcessInfo {
  pid: number;
  /** 0 when the process is gone or unreadable. */
  parentPid: number;
  /** Basename of the first word of the command line, as the CLI computes it. */
  name: string;
  /** The full command line, arguments joined by spaces. */
  command: string;
}

export interface IdeProcess {
  pid: number;
  command: string;
  /** How the PID was found. */
  source: 'env' | 'walk' | 'snapshot' | 'fallback';
  /** The ancestors visited, this process first (empty when from env). */
  chain: ProcessInfo[];
}

export interface FindIdeProcessOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the walk starts; default this process. */
  startPid?: number;
  platform?: NodeJS.Platform;
}

const GONE = (pid: number): ProcessInfo => ({ pid, parentPid: 0, name: '', command: '' });

/**
 * Linux: /proc/<pid>/stat for the parent, /proc/<pid>/cmdline for the command.
 * Read synchronously: procfs answers from memory, never from a disk, and a
 * walk is a dozen or more files, each costing several thread-pool round trips
 * (open, stat, read, close) when read asynchronously: ~15 ms in a fresh process
 * instead of well under one.
 */
function readProcLinux(pid: number): ProcessInfo {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return GONE(pid);
  }
  // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so split after the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  const parsed = Number.parseInt(fields[1] ?? '', 10);
  const parentPid = Number.isNaN(parsed) ? 1 : parsed;
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0').join(' ');
  } catch {
    // A process exiting between the two reads: keep what stat gave.
  }
  // `ps` shows kernel threads and zombies (empty cmdline) as `[comm]`.
  if (!command) command = `[${comm}]`;
  return { pid, parentPid, name: nameOf(command), command };
}

/** Other Unixes: the CLI's own `ps -o ppid=,command=`, without a shell in between. */
async function readProcPs(pid: number): Promise<ProcessInfo> {
  try {
    const { stdout } = await execFileAsync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], { timeout: 3000 });
    const trimmed = stdout.trim();
    if (!trimmed) return GONE(pid);
    const ppidText = trimmed.split(/\s+/)[0]!;
    const parsed = Number.parseInt(ppidText, 10);
    const command = trimmed.slice(ppidText.length).trim();
    return { pid, parentPid: Number.isNaN(parsed) ? 1 : parsed, name: nameOf(command), command };
  } catch {
    return GONE(pid);
  }
}

function nameOf(command: string): string {
  return path.basename(command.split(' ')[0] ?? '');
}

/** One process's parent and command; never throws (a vanished process reads as parentPid 0). */
export async function readProcessInfo(pid: number, platform: NodeJS.Platform = process.platform): Promise<ProcessInfo> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return GONE(pid);
  return platform === 'linux' ? readProcLinux(pid) : readProcPs(pid);
}

/** Windows: every process in one PowerShell call. Empty map when PowerShell fails. */
export async function windowsProcessTable(): Promise<Map<number, ProcessInfo>> {
  const table = new Map<number, ProcessInfo>();
  try {
    const script = 'Get-CimInstance Win32_Process | Select-Object ProcessId,ParentProcessId,Name,CommandLine | ConvertTo-Json -Compress';
    const { stdout } = await execFileAsync('powershell', ['-NoProfile', '-NonInteractive', '-Command', script], {
      maxBuffer: 10 * 1024 * 1024,
      timeout: 5000,
    });
    const parsed: unknown = JSON.parse(stdout.trim() || '[]');
    for (const p of Array.isArray(parsed) ? parsed : [parsed]) {
      if (p && typeof p.ProcessId === 'number') {
        table.set(p.ProcessId, {
          pid: p.ProcessId,
          parentPid: typeof p.ParentProcessId === 'number' ? p.ParentProcessId : 0,
          name: typeof p.Name === 'string' ? p.Name : '',
          command: typeof p.CommandLine === 'string' ? p.CommandLine : '',
        });
      }
    }
  } catch {
    // No PowerShell, or unparsable output: the caller falls back to this process.
  }
  return table;
}

/** `GEMINI_CLI_IDE_PID` as the CLI parses it, or undefined. */
export function idePidFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env[ENV.IDE_PID];
  if (!raw) return undefined;
  const pid = Number.parseInt(raw, 10);
  return !Number.isNaN(pid) && pid > 0 ? pid : undefined;
}

/** The IDE's PID and command, found exactly as the real CLI finds them. */
export async function findIdeProcess(options: FindIdeProcessOptions = {}): Promise<IdeProcess> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const start = options.startPid ?? process.pid;
  const fromEnv = idePidFromEnv(env);
  if (fromEnv !== undefined) {
    const command = platform === 'win32' ? ((await windowsProcessTable()).get(fromEnv)?.command ?? '') : (await readProcessInfo(fromEnv, platform)).command;
    return { pid: fromEnv, command, source: 'env', chain: [] };
  }
  return platform === 'win32' ? walkWindows(start) : walkUnix(start, platform);
}

async function walkUnix(start: number, platform: NodeJS.Platform): Promise<IdeProcess> {
  const chain: ProcessInfo[] = [];
  let current = start;
  for (let i = 0; i < MAX_TRAVERSAL_DEPTH; i++) {
    const info = await readProcessInfo(current, platform);
    chain.push(info);
    if (SHELL_NAMES.includes(info.name)) {
      // The shell's parent is often a pty helper: the IDE is one level higher.
      let idePid = info.parentPid;
      const parent = await readProcessInfo(info.parentPid, platform);
      chain.push(parent);
      if (parent.parentPid > 1) idePid = parent.parentPid;
      const ide = idePid === parent.pid ? parent : await readProcessInfo(idePid, platform);
      if (ide !== parent) chain.push(ide);
      return { pid: idePid, command: ide.command, source: 'walk', chain };
    }
    if (info.parentPid <= 1) break;
    current = info.parentPid;
  }
  const last = chain[chain.length - 1];
  const command = last && last.pid === current ? last.command : (await readProcessInfo(current, platform)).command;
  return { pid: current, command, source: 'fallback', chain };
}

async function walkWindows(start: number): Promise<IdeProcess> {
  const table = await windowsProcessTable();
  const self = table.get(start);
  if (!self) return { pid: start, command: '', source: 'fallback', chain: [] };
  const ancestors: ProcessInfo[] = [];
  let current: ProcessInfo | undefined = self;
  for (let i = 0; i < MAX_TRAVERSAL_DEPTH && current; i++) {
    ancestors.push(current);
    if (current.parentPid === 0 || !table.has(current.parentPid)) break;
    current = table.get(current.parentPid);
  }
  // The CLI takes the great-grandchild of the root: the third process from the top.
  const target = ancestors.length >= 3 ? ancestors[ancestors.length - 3]! : ancestors[ancestors.length - 1]!;
  return { pid: target.pid, command: target.command, source: 'snapshot', chain: ancestors };
}
