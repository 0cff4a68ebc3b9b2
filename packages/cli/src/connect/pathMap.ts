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

/** An absolute POSIX path without `.`, `..`, `//` or a trailing slash; undefined for anything else. */
function clean(p: string): string | undefined {
  if (typeof p !== 'string' || !p.startsWith('/') || p.includes('\0')) return undefined;
  const normal = path.posix.normalize(p);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

function under(root: string, p: string): string | undefined {
  if (p === root) return '';
  const prefix = root === '/' ? '/' : `${root}/`;
  return p.startsWith(prefix) ? p.slice(prefix.length) : undefined;
}

export class PathMap {
  private constructor(readonly roots: readonly RootPair[]) {}

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
    return this.translate(cliPath, 'cli', 'host');
  }

  /** The CLI's path for one the editor sent, or undefined when no editor root holds it. */
  toCli(hostPath: string): string | undefined {
    return this.translate(hostPath, 'host', 'cli');
  }

  /** The roots one side knows, for error messages. */
  describe(side: 'host' | 'cli'): string {
    return this.roots.map((r) => r[side]).join(', ');
  }

  private translate(p: string, from: 'host' | 'cli', to: 'host' | 'cli'): string | undefined {
    if (this.identity) return p;
    const normal = clean(p);
    if (normal === undefined) return undefined;
    let best: { rest: string; pair: RootPair } | undefined;
    for (const pair of this.roots) {
      const rest = under(pair[from], normal);
      if (rest !== undefined && (!best || pair[from].length > best.pair[from].length)) best = { rest, pair };
    }
    if (!best) return undefined;
    return best.rest === '' ? best.pair[to] : path.posix.join(best.pair[to], best.rest);
  }
}
