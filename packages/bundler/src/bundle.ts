/**
 * Host bundles (the Neovim host, the JSON-lines bridge host, serve, the MCP
 * server): a host and everything it imports, shipped with its plugin so
 * users need Node and nothing else. Built, not committed: `npm install` (the
 * root `prepare`), `npm run bundle`, the installers from a clone and `npm run
 * release` write them (scripts/bundle.mjs); a test per bundle rebuilds it in
 * memory and fails if the built files differ (the tests would run stale code).
 *
 * One file by default. With `chunks`, what the host imports dynamically goes
 * to files in that folder beside it, so a start parses only what it runs
 * (start time: docs/benchmarks.md). The MCP SDK's server side (the server's
 * sdk.js, loaded by lazySdk.js when the first CLI connects) is built there as
 * a bundle of its own, `sdk.mjs`, sharing no chunk with the host: esbuild
 * puts a file used by two entries in a shared chunk whole, so sharing zod's
 * core with the SDK made every start parse all of it (~50 KB more than the
 * host's own schemas need). zod keeps one registry across copies
 * (globalThis.__zod_globalRegistry) and checks instances by their traits, so
 * the two copies work together.
 *
 * With `sdk`, the SDK side is built once for every host (writeSdkChunk), not
 * into each chunks folder: a host loads `chunks/sdk.mjs` when its folder has
 * one (an installed plugin's copy: the installers put it there), else that one
 * file, at its place in the repository or the release package.
 */
import { build, type BuildOptions, type OutputFile, type Plugin } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface HostBundle {
  /** The host's main module (TypeScript source). */
  entry: string;
  /** The bundle (its entry file). */
  outfile: string;
  /** The editor package's folder. */
  absWorkingDir: string;
  /** Who generated it and how to regenerate it (one or two `//` lines). */
  header: string;
  /** Modules replaced at build time (e.g. a logger the host never uses). */
  alias?: Record<string, string>;
  /**
   * A folder beside `outfile` (its name) for the code that is only imported
   * dynamically. It holds nothing else: a rebuild replaces its files.
   */
  chunks?: string;
  /** Identifiers replaced at build time (esbuild's `define`): the release bundle's IDE_COMPANION_RELEASE. */
  define?: Record<string, string>;
  /** The one SDK chunk every host shares (absolute path; writeSdkChunk builds it), loaded when `chunks` holds no sdk.mjs. */
  sdk?: string;
}

/**
 * Aliases every bundle needs. `zod/mini` is `zod/v4-mini`, the specifier the MCP
 * SDK imports: when the SDK is imported dynamically into the same file, esbuild
 * wraps its modules to run on first use and, zod being side-effect free, drops
 * the wrapper's start from our side of a second path to the same modules, so
 * our schemas met zod's classes undefined ("t is not a constructor").
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = { 'zod/mini': 'zod/v4-mini' };

/** How lazySdk.js imports the SDK side, and the file that side is built to in the chunk folder. */
const SDK_IMPORT = { importer: /[\\/]lazySdk\.js$/, specifier: './sdk.js', file: 'sdk.mjs' };

/** Leaves the SDK side out of the host (imported from `chunks`/sdk.mjs) and reports where its source is. */
function sdkApart(chunks: string, found: (entry: string) => void, shared?: { outdir: string; sdk: string }): Plugin {
  return {
    name: 'sdk-apart',
    setup(b) {
      if (shared) {
        // lazySdk.js, with the shared chunk as the second place to look (an installed copy has its own).
        const beside = `./${chunks}/${SDK_IMPORT.file}`;
        const there = `./${path.relative(shared.outdir, shared.sdk).split(path.sep).join('/')}`;
        b.onLoad({ filter: SDK_IMPORT.importer }, () => ({
          contents: [
            'let loading;',
            'export function loadSdk() {',
            `  loading ??= import(${JSON.stringify(beside)}).catch((err) => {`,
            "    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes(" + JSON.stringify(`${chunks}/${SDK_IMPORT.file}`) + ')) throw err;',
            `    return import(${JSON.stringify(there)});`,
            '  });',
            '  return loading;',
            '}',
          ].join('\n'),
          loader: 'js',
        }));
        b.onResolve({ filter: /sdk\.mjs$/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
        return;
      }
      b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) => {
        if (!SDK_IMPORT.importer.test(args.importer)) return undefined;
        found(path.join(args.resolveDir, SDK_IMPORT.specifier));
        return { path: `./${chunks}/${SDK_IMPORT.file}`, external: true };
      });
    },
  };
}

/** What every bundle is built with: Node 20 ESM, minified, its header, `require` for bundled CommonJS. */
export function bundleOptions(bundle: Pick<HostBundle, 'absWorkingDir' | 'header' | 'alias' | 'define'>): BuildOptions {
  return {
    absWorkingDir: bundle.absWorkingDir,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: {
      js: [
        bundle.header,
        // Bundled CommonJS dependencies call require() for Node built-ins.
        "import { createRequire as __ideCompanionCreateRequire } from 'node:module';",
        'const require = __ideCompanionCreateRequire(import.meta.url);',
      ].join('\n'),
    },
    // Minified: the file is half the size; licence comments are kept at the end.
    minify: true,
    legalComments: 'eof',
    alias: { ...BUNDLE_ALIASES, ...bundle.alias },
    ...(bundle.define ? { define: bundle.define } : {}),
    logLevel: 'silent',
    charset: 'utf8',
  };
}

/** The bundle's files, built from the current sources (nothing written): absolute path to text. */
export async function buildHostBundleFiles(bundle: HostBundle): Promise<Map<string, string>> {
  const outdir = path.dirname(bundle.outfile);
  const entryName = path.basename(bundle.outfile, path.extname(bundle.outfile));
  const common = bundleOptions(bundle);
  let sdkEntry: string | undefined;
  const outputs: OutputFile[] = [];
  const host = await build({
    ...common,
    entryPoints: [bundle.entry],
    ...(bundle.chunks
      ? {
          outdir,
          splitting: true,
          entryNames: entryName,
          chunkNames: `${bundle.chunks}/[name]-[hash]`,
          outExtension: { '.js': path.extname(bundle.outfile) },
          plugins: [sdkApart(bundle.chunks, (entry) => (sdkEntry = entry), bundle.sdk ? { outdir, sdk: bundle.sdk } : undefined)],
        }
      : { outfile: bundle.outfile }),
  });
  outputs.push(...(host.outputFiles ?? []));
  if (bundle.chunks && sdkEntry) {
    const sdk = await build({ ...common, entryPoints: [sdkEntry], outfile: path.join(outdir, bundle.chunks, SDK_IMPORT.file) });
    outputs.push(...(sdk.outputFiles ?? []));
  }
  const files = new Map<string, string>(outputs.map((f) => [f.path, f.text]));
  if (!files.has(path.resolve(bundle.outfile))) throw new Error(`esbuild did not produce ${bundle.outfile}`);
  return files;
}

/**
 * Writes the one SDK chunk the hosts share (`entry`: the server's compiled sdk.js) to `outfile`;
 * returns its size in bytes. The same header for all: an installer copies it beside each host.
 */
export async function writeSdkChunk(entry: string, outfile: string): Promise<number> {
  const header = "// The MCP SDK's server side for every ide-companion host: GENERATED by `npm run bundle` from packages/server/src/sdk.ts.";
  const built = await build({ ...bundleOptions({ absWorkingDir: path.dirname(entry), header }), entryPoints: [entry], outfile });
  const text = built.outputFiles?.[0]?.text;
  if (text === undefined) throw new Error(`esbuild did not produce ${outfile}`);
  mkdirSync(path.dirname(outfile), { recursive: true });
  writeFileSync(outfile, text);
  return Buffer.byteLength(text);
}

/** The built files of `bundle`: the entry and, with `chunks`, that folder's files. */
function builtFiles(bundle: HostBundle): string[] {
  const files = [path.resolve(bundle.outfile)];
  if (!bundle.chunks) return files;
  const dir = path.resolve(path.dirname(bundle.outfile), bundle.chunks);
  if (existsSync(dir)) for (const name of readdirSync(dir)) files.push(path.join(dir, name));
  return files;
}

/** Writes the bundle (replacing its chunk folder's files); returns its size in bytes. */
export async function writeHostBundle(bundle: HostBundle): Promise<number> {
  const files = await buildHostBundleFiles(bundle);
  for (const old of builtFiles(bundle)) if (!files.has(old)) rmSync(old);
  let bytes = 0;
  for (const [file, text] of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** Why the built bundle is missing or stale, or undefined when it equals a fresh build. */
export async function staleBundleReason(bundle: HostBundle, rebuild: string): Promise<string | undefined> {
  const fresh = await buildHostBundleFiles(bundle);
  const built = builtFiles(bundle);
  for (const file of built) {
    if (!existsSync(file)) return `${file} is missing: run \`${rebuild}\``;
    const want = fresh.get(file);
    if (want === undefined) return `${file} is left from an older build: run \`${rebuild}\``;
    const have = readFileSync(file, 'utf8');
    if (have !== want) return `${file} is out of date (${have.length} vs ${want.length} chars): run \`${rebuild}\``;
  }
  for (const file of fresh.keys()) if (!built.includes(file)) return `${file} is missing: run \`${rebuild}\``;
  return undefined;
}
