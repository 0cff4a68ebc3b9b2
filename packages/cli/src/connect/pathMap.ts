/**
 * `--map HOST_ROOT=CLI_ROOT`: the editor's folders as the CLI elsewhere sees
 * them (a container's mount, a remote checkout). A path is translated by the
 * longest root that contains it, on whole segments (`/a/b` holds `/a/b/c`,
 * not `/a/bc`), after `.` and `..` are resolved, so `/workspaces/p/../../etc`
 * is `/etc` and outside. Without a map, paths pass unchanged. Paths are POSIX:
 * the CLI elsewhere is a Linux container or a remote shell.
 */
import * as path from 'node:path';

export interface RootPair {
  /** The editor's side (this machine). */
  readonly host: string;
  /** The CLI's side. */
  readonly cli: string;
}

export class PathMapError extends Error {
  override name = 'PathMapError';
}

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * Whether `p` is already clean: absolute, no empty, `.` or `..` segment, no trailing slash, no NUL. Most paths are
 * (the editor's own, the CLI's), and are translated by slicing, without path.posix.normalize and join: those were
 * half the relay's work on a context update (ten paths) with a map.
 */
function isClean(p: string): boolean {
  const n = p.length;
  if (n < 2 || p.charCodeAt(0) !== SLASH || p.charCodeAt(n - 1) === SLASH) return false;
  // One pass: each segment (after a slash) neither empty, nor `.`, nor `..`; no NUL anywhere.
  for (let i = 0; i < n; i++) {
    const c = p.charCodeAt(i);
    if (c === 0) return false;
    if (c !== SLASH) continue;
    const a = i + 1 < n ? p.charCodeAt(i + 1) : SLASH;
    if (a === SLASH) return false;
    if (a !== DOT) continue;
    const b = i + 2 < n ? p.charCodeAt(i + 2) : SLASH;
    if (b === SLASH) return false;
    if (b === DOT && (i + 3 >= n || p.charCodeAt(i + 3) === SLASH)) return false;
  }
  return true;
}

/** An absolute POSIX path without `.`, `..`, `//` or a trailing slash; undefined for anything else. */
function clean(p: string): string | undefined {
  if (typeof p !== 'string') return undefined;
  if (isClean(p)) return p;
  if (!p.startsWith('/') || p.includes('\0')) return undefined;
  const normal = path.posix.normalize(p);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** One direction of the map: each root's path on this side, what a path under it starts with, and the other side's root. */
interface Way {
  readonly from: string;
  readonly prefix: string;
  readonly to: string;
}

/** The roots as one direction reads them, the longest first (the first of equal ones first): the first that holds a path is its root. */
function way(roots: readonly RootPair[], from: 'host' | 'cli', to: 'host' | 'cli'): Way[] {
  const ways = roots.map((r) => ({ from: r[from], prefix: r[from] === '/' ? '/' : `${r[from]}/`, to: r[to] }));
  return ways.sort((a, b) => b.from.length - a.from.length);
}

export class PathMap {
  private readonly toHostWay: readonly Way[];
  private readonly toCliWay: readonly Way[];

  private constructor(readonly roots: readonly RootPair[]) {
    this.toHostWay = way(roots, 'cli', 'host');
    this.toCliWay = way(roots, 'host', 'cli');
  }

  /** From `--map` values; throws PathMapError naming the bad one. */
  static parse(specs: readonly string[]): PathMap {
    const roots = specs.map((spec) => {
      const eq = spec.indexOf('=');
      const host = eq > 0 ? clean(spec.slice(0, eq)) : undefined;
      const cli = eq > 0 ? clean(spec.slice(eq + 1)) : undefined;
      if (!host || !cli) throw new PathMapError(`--map ${spec}: expected HOST_ROOT=CLI_ROOT, two absolute paths`);
      return { host, cli };
    });
    return new PathMap(roots);
  }

  /** No map: every path passes unchanged. */
  get identity(): boolean {
    return this.roots.length === 0;
  }

  /** The editor's path for one the CLI sent, or undefined when no CLI root holds it. */
  toHost(cliPath: string): string | undefined {
    return this.translate(cliPath, this.toHostWay);
  }

  /** The CLI's path for one the editor sent, or undefined when no editor root holds it. */
  toCli(hostPath: string): string | undefined {
    return this.translate(hostPath, this.toCliWay);
  }

  /** The roots one side knows, for error messages. */
  describe(side: 'host' | 'cli'): string {
    return this.roots.map((r) => r[side]).join(', ');
  }

  private translate(p: string, ways: readonly Way[]): string | undefined {
    if (this.identity) return p;
    const normal = clean(p);
    if (normal === undefined) return undefined;
    for (const { from, prefix, to } of ways) {
      if (normal === from) return to;
      if (!normal.startsWith(prefix)) continue;
      // Both clean (the root by parse, the rest a clean path's tail): joined, they are clean too.
      const rest = normal.slice(prefix.length);
      return to === '/' ? `/${rest}` : `${to}/${rest}`;
    }
    return undefined;
  }
}
