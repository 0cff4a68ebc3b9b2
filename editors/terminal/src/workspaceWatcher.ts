/**
 * Watches the workspace roots for saved files (chokidar), skipping `.git`,
 * `node_modules` and git-ignored paths, and reports them as editor events: a save
 * is the closest thing a terminal editor gives us to "the user is on this file".
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_OPEN_FILES } from '@ide-companion/protocol';
import chokidar, { type FSWatcher } from 'chokidar';
import type { EditorEvent } from '@ide-companion/protocol';
import { GitIgnored } from './gitIgnored.js';

const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);
/** Past this many tracked files, only the first ones listed are considered for the initial context. */
const MAX_SEEDED_CANDIDATES = 20_000;

export class WorkspaceWatcher {
  private watcher: FSWatcher | undefined;
  private readonly ignores: GitIgnored[];

  constructor(
    private readonly roots: readonly string[],
    private readonly report: (event: EditorEvent) => void,
    private readonly onSaved: (filePath: string) => void = () => {},
  ) {
    this.ignores = roots.map((r) => new GitIgnored(r));
  }

  async start(): Promise<void> {
    await Promise.all(this.ignores.map((i) => i.refresh()));
    await this.seed();
    this.watcher = chokidar.watch([...this.roots], {
      ignoreInitial: true,
      ignored: (p) => this.skipped(p),
    });
    this.watcher.on('add', (p) => this.saved(p));
    this.watcher.on('change', (p) => this.saved(p));
    this.watcher.on('unlink', (p) => this.report({ type: 'delete', path: path.resolve(p) }));
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  /**
   * Starts the context with the most recently modified tracked files (their
   * mtime as focus time), so a CLI that connects before any save still learns
   * what the user was working on. Git work trees only; bounded.
   */
  private async seed(): Promise<void> {
    const candidates: Array<[string, number]> = [];
    for (const root of this.roots) {
      const listed = await new Promise<string | undefined>((resolve) => {
        execFile('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (err, out) => resolve(err ? undefined : out));
      });
      const files = (listed ?? '').split('\0').filter(Boolean).slice(0, MAX_SEEDED_CANDIDATES);
      await Promise.all(
        files.map(async (rel) => {
          const abs = path.join(root, rel);
          if (this.skipped(abs)) return;
          const st = await fs.promises.stat(abs).catch(() => undefined);
          if (st?.isFile()) candidates.push([abs, st.mtimeMs]);
        }),
      );
    }
    candidates.sort((a, b) => b[1] - a[1]);
    for (const [abs, mtime] of candidates.slice(0, MAX_OPEN_FILES).reverse()) this.report({ type: 'open', path: abs, timestamp: Math.floor(mtime) });
  }

  async stop(): Promise<void> {
    await this.watcher?.close();
  }

  private saved(p: string): void {
    const filePath = path.resolve(p);
    if (path.basename(filePath) === '.gitignore') void Promise.all(this.ignores.map((i) => i.refresh()));
    this.report({ type: 'focus', path: filePath });
    this.onSaved(filePath);
  }

  private skipped(p: string): boolean {
    const abs = path.resolve(p);
    const root = this.roots.find((r) => abs === r || abs.startsWith(r + path.sep));
    // Only segments below the root count: a workspace may itself live under a node_modules.
    const below = root ? path.relative(root, abs) : abs;
    if (below.split(path.sep).some((segment) => ALWAYS_SKIPPED.has(segment))) return true;
    return this.ignores.some((i) => i.has(abs));
  }
}
