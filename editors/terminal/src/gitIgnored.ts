/**
 * Paths git ignores under a root, listed once (`git ls-files --others
 * --ignored --exclude-standard --directory`) so the watcher can skip them
 * synchronously. Outside a git work tree nothing is ignored.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';

export class GitIgnored {
  private ignored = new Set<string>();

  constructor(private readonly root: string) {}

  async refresh(): Promise<void> {
    const out = await new Promise<string | undefined>((resolve) => {
      execFile(
        'git',
        ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z'],
        { cwd: this.root, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout) => resolve(err ? undefined : stdout),
      );
    });
    const next = new Set<string>();
    for (const entry of (out ?? '').split('\0')) {
      if (entry) next.add(path.join(this.root, entry.replace(/\/$/, '')));
    }
    this.ignored = next;
  }

  /** Whether `absPath` or one of its ancestors below the root is ignored. */
  has(absPath: string): boolean {
    if (this.ignored.size === 0) return false;
    let p = absPath;
    while (p.length > this.root.length) {
      if (this.ignored.has(p)) return true;
      p = path.dirname(p);
    }
    return false;
  }
}
