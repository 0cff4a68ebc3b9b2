/**
 * Watches the workspace roots for saved files (chokidar), skipping `.git`,
 * `node_modules` and git-ignored paths, and reports them as editor events: a save
 * is the closest thing a terminal editor gives us to "the user is on this file".
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_OPEN_FILES } from '@ide-companion/protocol';
import type { FSWatcher } from 'chokidar';
import type { EditorEvent } from '@ide-companion/protocol';
import { GitIgnored } from './gitIgnored.js';

const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);
/** Past this many changed files, only the first ones listed are considered for the initial context. */
const MAX_SEEDED_CANDIDATES = 20_000;
/** Files tools write, not people: never seeded even when uncommitted. */
const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'Cargo.lock',
  'Gemfile.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'composer.lock',
  'go.sum',
  'flake.lock',
  'mix.lock',
  'pubspec.lock',
  'packages.lock.json',
]);
const BUILD_DIRS = new Set(['dist', 'build', 'out', 'target', 'coverage', '.next', '.nuxt', '.turbo', '.cache', '__pycache__', '.venv', 'venv', '.gradle']);
const GENERATED = /\.(tsbuildinfo|map|min\.js|min\.css|pyc|class|o)$/;

/** A lockfile, build output or another generated file (by name, below `root`). */
function isGenerated(abs: string, root: string): boolean {
  const segments = path.relative(root, abs).split(path.sep);
  const name = segments[segments.length - 1]!;
  return LOCKFILES.has(name) || GENERATED.test(name) || segments.slice(0, -1).some((s) => BUILD_DIRS.has(s));
}

function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, out) => resolve(err ? undefined : out));
  });
}

/** Absolute paths under `root` with uncommitted changes (`git status --porcelain`), deletions left out; [] outside git. */
async function uncommittedFiles(root: string): Promise<string[]> {
  const top = (await git(root, ['rev-parse', '--show-toplevel']))?.trim();
  const status = top ? await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.']) : undefined;
  if (!top || status === undefined) return [];
  const realTop = await fs.promises.realpath(top).catch(() => top);
  const entries = status.split('\0');
  const files: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const [x, y] = [entry[0], entry[1]];
    // Renames and copies: the next entry is the old path.
    if (x === 'R' || x === 'C') i++;
    if (x === 'D' || y === 'D') continue;
    const abs = path.join(realTop, entry.slice(3));
    if (abs.startsWith(root + path.sep)) files.push(abs);
  }
  return files;
}

export class WorkspaceWatcher {
  private watcher: FSWatcher | undefined;
  private stopped = false;
  private readonly ignores: GitIgnored[];

  constructor(
    private readonly roots: readonly string[],
    private readonly report: (event: EditorEvent) => void,
    private readonly onSaved: (filePath: string) => void = () => {},
  ) {
    this.ignores = roots.map((r) => new GitIgnored(r));
  }

  private seeding: Promise<void> | undefined;

  /**
   * Seeds the context (below) once; `watch()` waits for it too, since both
   * need the git-ignored paths. serve lets the companion start meanwhile.
   */
  seed(): Promise<void> {
    this.seeding ??= Promise.all(this.ignores.map((i) => i.refresh())).then(() => this.seedFromGit());
    return this.seeding;
  }

  /** Reports saves and deletions from now on; resolves when the watcher is ready. */
  async watch(): Promise<void> {
    await this.seed();
    // Loaded here, after the discovery file: serve's start need not parse it (docs/benchmarks.md).
    const { default: chokidar } = await import('chokidar');
    if (this.stopped) return;
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
   * Starts the context with what the user is working on, so a CLI that
   * connects before any save learns it: the work tree's uncommitted changes
   * (modified, added, renamed, untracked), most recently modified first,
   * without lockfiles and build output. Not mtimes of tracked files: after a
   * clone or checkout those name files nobody touched (lockfile, tsconfig).
   * A clean work tree, or a folder outside git, starts empty.
   */
  private async seedFromGit(): Promise<void> {
    const candidates: Array<[string, number]> = [];
    for (const root of this.roots) {
      const changed = await uncommittedFiles(root);
      await Promise.all(
        changed.slice(0, MAX_SEEDED_CANDIDATES).map(async (abs) => {
          if (this.skipped(abs) || isGenerated(abs, root)) return;
          const st = await fs.promises.stat(abs).catch(() => undefined);
          if (st?.isFile()) candidates.push([abs, st.mtimeMs]);
        }),
      );
    }
    candidates.sort((a, b) => b[1] - a[1]);
    for (const [abs, mtime] of candidates.slice(0, MAX_OPEN_FILES).reverse()) this.report({ type: 'open', path: abs, timestamp: Math.floor(mtime) });
  }

  async stop(): Promise<void> {
    this.stopped = true;
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
