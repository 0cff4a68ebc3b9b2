/** Process facts tests wait on. */
import * as fs from 'node:fs';

/** Whether `pid` runs: a zombie waiting to be reaped counts as gone (kill(pid, 0) would still succeed on it). */
export function processRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
