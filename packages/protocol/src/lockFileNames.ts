/** The agents' lock file names, apart from their schemas: doctor and list read them without loading zod. */

/** An agent's lock file name for a companion on `port` (Qwen's, Claude's and Copilot's alike). */
export function portLockFileName(port: number): string {
  return `${port}.lock`;
}

/** Amp's lock file name for a companion on `port` (amp.nvim's `<PORT>.json`). */
export function ampLockFileName(port: number): string {
  return `${port}.json`;
}
