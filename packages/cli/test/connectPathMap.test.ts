/**
 * The relay's path map reads most paths without path.posix.normalize and
 * join (pathMap.ts: a path already clean is translated by slicing). It must
 * translate every path exactly as the map did when every path went through
 * normalize and join: that map is kept here as the reference, and both read
 * a corpus of odd paths (dot segments, doubled and trailing slashes, NUL and
 * other control characters, non-ASCII, lone surrogates, huge, relative, not
 * strings) on maps with nested, equal, and `/` roots. Then a context update
 * with those paths, through the relay's translator, against the reference.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ContextUpdateNotification } from '@ide-companion/protocol';
import { PathMap } from '../src/connect/pathMap.js';
import { MessageTranslator } from '../src/connect/translate.js';

/** The map as it was (before the fast path): every path normalized, the longest root by comparison, joined by path.posix.join. */
class ReferenceMap {
  constructor(private readonly roots: ReadonlyArray<{ host: string; cli: string }>) {}

  static parse(specs: readonly string[]): ReferenceMap {
    return new ReferenceMap(
      specs.map((spec) => {
        const eq = spec.indexOf('=');
        return { host: ReferenceMap.clean(spec.slice(0, eq))!, cli: ReferenceMap.clean(spec.slice(eq + 1))! };
      }),
    );
  }

  static clean(p: string): string | undefined {
    if (typeof p !== 'string' || !p.startsWith('/') || p.includes('\0')) return undefined;
    const normal = path.posix.normalize(p);
    return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
  }

  toHost(p: string): string | undefined {
    return this.translate(p, 'cli', 'host');
  }

  toCli(p: string): string | undefined {
    return this.translate(p, 'host', 'cli');
  }

  private translate(p: string, from: 'host' | 'cli', to: 'host' | 'cli'): string | undefined {
    if (this.roots.length === 0) return p;
    const normal = ReferenceMap.clean(p);
    if (normal === undefined) return undefined;
    const under = (root: string): string | undefined => {
      if (normal === root) return '';
      const prefix = root === '/' ? '/' : `${root}/`;
      return normal.startsWith(prefix) ? normal.slice(prefix.length) : undefined;
    };
    let best: { rest: string; pair: { host: string; cli: string } } | undefined;
    for (const pair of this.roots) {
      const rest = under(pair[from]);
      if (rest !== undefined && (!best || pair[from].length > best.pair[from].length)) best = { rest, pair };
    }
    if (!best) return undefined;
    return best.rest === '' ? best.pair[to] : path.posix.join(best.pair[to], best.rest);
  }
}

const MAPS: string[][] = [
  ['/home/me/proj=/workspaces/proj'],
  ['/home/me/proj=/workspaces/proj', '/home/me/proj/vendor/lib=/opt/lib'],
  ['/home/me/proj/vendor/lib=/opt/lib', '/home/me/proj=/workspaces/proj'],
  ['/=/host'],
  ['/home/me=/'],
  ['/=/'],
  ['/home/me/proj=/a', '/home/me/proj=/b'],
  ['/home/me/proj/=/workspaces/./proj//', '/srv/../home/x=/x'],
  ['/home/mé/プロジェクト=/workspaces/p😀'],
];

/** Paths on both sides of every map above, and odd ones. */
function corpus(): string[] {
  const bases = ['/home/me/proj', '/workspaces/proj', '/home/me/proj/vendor/lib', '/opt/lib', '/host', '/home/me', '/a', '/b', '/x', '/', ''];
  bases.push('/home/mé/プロジェクト', '/workspaces/p😀');
  const tails = [
    '',
    '/',
    '//',
    '/src/a.ts',
    '/src//a.ts',
    '/src/./a.ts',
    '/src/../a.ts',
    '/../../etc/passwd',
    '/..',
    '/.',
    '/./',
    '/../',
    '/.hidden',
    '/..dots',
    '/a..',
    '/a.',
    '/.../x',
    '/src/a.ts/',
    '/src/a.ts/.',
    '/src/a.ts/..',
    'X/a',
    '-sibling/a',
    '/a\0b',
    '/\0',
    '/tab\tnew\nline\r\u001b[31mred\u0007',
    '/\u0085\u2028\u2029\u00a0',
    '/é/ü/ß/プロジェクト/😀.ts',
    '/\ud800lone',
    '/lone\udfff',
    '/a b/c"d\\e',
    `/${'x'.repeat(70_000)}`,
    `/${'deep/'.repeat(5_000)}end`,
    `/${'../'.repeat(100)}home/me/proj/a`,
  ];
  const paths = new Set<string>();
  for (const b of bases) for (const t of tails) paths.add(b + t);
  for (const odd of ['', '.', '..', 'relative/a', './a', '~/a', '\\home\\me', 'C:\\proj', '//', '///home/me/proj', '/home/me/proj\u0000/a']) paths.add(odd);
  return [...paths];
}

describe('the path map, fast path against the normalizing one', () => {
  const paths = corpus();

  test(`${MAPS.length} maps x ${paths.length} paths, both ways: the same translation or the same refusal`, () => {
    let translated = 0;
    for (const specs of MAPS) {
      const map = PathMap.parse(specs);
      const reference = ReferenceMap.parse(specs);
      for (const p of paths) {
        const label = `${JSON.stringify(specs)} ${JSON.stringify(p.length > 80 ? `${p.slice(0, 80)}...(${p.length})` : p)}`;
        const toHost = map.toHost(p);
        const toCli = map.toCli(p);
        assert.equal(toHost, reference.toHost(p), `toHost ${label}`);
        assert.equal(toCli, reference.toCli(p), `toCli ${label}`);
        if (toHost !== undefined) translated++;
        if (toCli !== undefined) translated++;
      }
    }
    // The corpus is not all refusals: both the fast and the slow path translate some.
    assert.ok(translated > 500, `translated ${translated}`);
  });

  test('not a string: refused, as before', () => {
    const map = PathMap.parse(MAPS[0]!);
    for (const v of [undefined, null, 3, {}, ['/home/me/proj/a'], Symbol.iterator]) {
      assert.equal(map.toCli(v as unknown as string), undefined);
      assert.equal(map.toHost(v as unknown as string), undefined);
    }
  });

  test('a context update through the relay translator: the paths the reference gives, and dropped when one is outside', () => {
    const specs = MAPS[1]!;
    const map = PathMap.parse(specs);
    const reference = ReferenceMap.parse(specs);
    const translator = new MessageTranslator(map);
    const inside = paths.filter((p) => reference.toCli(p) !== undefined);
    const outside = paths.filter((p) => reference.toCli(p) === undefined);
    assert.ok(inside.length > 20 && outside.length > 20);
    const update = (files: string[]) => ({
      jsonrpc: '2.0',
      method: ContextUpdateNotification.method,
      params: {
        workspaceState: {
          openFiles: files.map((p, i) => ({ path: p, timestamp: i, ...(i === 0 && { isActive: true, selectedText: `${p} stays as it is` }) })),
          isTrusted: true,
        },
      },
    });
    const message = update(inside);
    const out = translator.toCli(JSON.parse(JSON.stringify(message)));
    assert.deepEqual(out, {
      ...message,
      params: {
        workspaceState: {
          ...message.params.workspaceState,
          openFiles: message.params.workspaceState.openFiles.map((f) => ({ ...f, path: reference.toCli(f.path) })),
        },
      },
    });
    // The selection's text reads like a host path and is not one: untouched.
    assert.equal((out as typeof message).params.workspaceState.openFiles[0]!.selectedText, `${inside[0]} stays as it is`);
    for (const p of outside.slice(0, 50)) {
      // The file outside is left out of openFiles (array elements holding one are left out), the others kept.
      const mixed = translator.toCli(JSON.parse(JSON.stringify(update([inside[1]!, p, inside[2]!]))));
      assert.deepEqual(
        (mixed as typeof message).params.workspaceState.openFiles.map((f) => f.path),
        [reference.toCli(inside[1]!), reference.toCli(inside[2]!)],
        JSON.stringify(p.slice(0, 80)),
      );
    }
  });
});
