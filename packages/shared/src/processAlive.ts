/** Whether a process lives, in a module of its own: the commands that only read discovery files need nothing else of discoveryFile.ts (its crypto costs a start ~5 ms). */

/** Whether a process exists (EPERM means it does, as another user's). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
