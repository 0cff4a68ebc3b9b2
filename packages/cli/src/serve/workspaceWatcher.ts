/**
 * Watches the workspace roots for saved files (chokidar), skipping `.git`,
 * `node_modules` and git-ignored paths, and tells the context tracker: a save
 * is the closest thing a terminal editor gives us to "the user is on this file".
 */
import * as path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import type { ContextTracker } from '@ide-companion/server';
import { GitIgnored } from './gitIgnored.js';

const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);

export class WorkspaceWatcher {
  private watcher: FSWatcher | undefined;
  private readonly ignores: GitIgnored[];

  constructor(
    private readonly roots: readonly string[],
    private readonly context: ContextTracker,
    private readonly onSaved: (filePath: string) => void = () => {},
  ) {
    this.ignores = roots.map((r) => new GitIgnored(r));
  }

  async start(): Promise<void> {
    await Promise.all(this.ignores.map((i) => i.refresh()));
    this.watcher = chokidar.watch([...this.roots], {
      ignoreInitial: true,
      ignored: (p) => this.skipped(p),
    });
    this.watcher.on('add', (p) => this.saved(p));
    this.watcher.on('change', (p) => this.saved(p));
    this.watcher.on('unlink', (p) => this.context.delete(path.resolve(p)));
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    await this.watcher?.close();
  }

  private saved(p: string): void {
    const filePath = path.resolve(p);
    if (path.basename(filePath) === '.gitignore') void Promise.all(this.ignores.map((i) => i.refresh()));
    this.context.focus(filePath);
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
