/**
 * Host bundles (the Neovim host, the JSON-lines bridge host, serve, the MCP
 * server): a host and everything it imports, committed with its plugin so
 * users need Node and nothing else. Each editor's bundle script writes it; a
 * test per bundle rebuilds it in memory and fails if the committed files differ.
 *
 * One file by default. With `chunks`, what the host imports dynamically (the
 * MCP SDK's server side, loaded when the first CLI connects) goes to files in
 * that folder beside it, so a start parses only what it runs (start time:
 * docs/benchmarks.md).
 */
import { build, type OutputFile } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface HostBundle {
  /** The host's main module (TypeScript source). */
  entry: string;
  /** The committed bundle (its entry file). */
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
}

/** The bundle's files, built from the current sources (nothing written): absolute path to text. */
export async function buildHostBundleFiles(bundle: HostBundle): Promise<Map<string, string>> {
  const outdir = path.dirname(bundle.outfile);
  const entryName = path.basename(bundle.outfile, path.extname(bundle.outfile));
  const result = await build({
    entryPoints: [bundle.entry],
    absWorkingDir: bundle.absWorkingDir,
    ...(bundle.chunks
      ? { outdir, splitting: true, entryNames: entryName, chunkNames: `${bundle.chunks}/[name]-[hash]`, outExtension: { '.js': path.extname(bundle.outfile) } }
      : { outfile: bundle.outfile }),
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
    // Minified: the committed file is half the size; licence comments are kept at the end.
    minify: true,
    legalComments: 'eof',
    alias: bundle.alias ?? {},
    logLevel: 'silent',
    charset: 'utf8',
  });
  const files = new Map<string, string>((result.outputFiles ?? []).map((f: OutputFile) => [f.path, f.text]));
  if (!files.has(path.resolve(bundle.outfile))) throw new Error(`esbuild did not produce ${bundle.outfile}`);
  return files;
}

/** The committed files of `bundle`: the entry and, with `chunks`, that folder's files. */
function committedFiles(bundle: HostBundle): string[] {
  const files = [path.resolve(bundle.outfile)];
  if (!bundle.chunks) return files;
  const dir = path.resolve(path.dirname(bundle.outfile), bundle.chunks);
  if (existsSync(dir)) for (const name of readdirSync(dir)) files.push(path.join(dir, name));
  return files;
}

/** Writes the bundle (replacing its chunk folder's files); returns its size in bytes. */
export async function writeHostBundle(bundle: HostBundle): Promise<number> {
  const files = await buildHostBundleFiles(bundle);
  for (const old of committedFiles(bundle)) if (!files.has(old)) rmSync(old);
  let bytes = 0;
  for (const [file, text] of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** Why the committed bundle is stale, or undefined when it equals a fresh build. */
export async function staleBundleReason(bundle: HostBundle, rebuild: string): Promise<string | undefined> {
  const fresh = await buildHostBundleFiles(bundle);
  const committed = committedFiles(bundle);
  for (const file of committed) {
    const want = fresh.get(file);
    if (want === undefined) return `${file} is left from an older build: run \`${rebuild}\``;
    const have = readFileSync(file, 'utf8');
    if (have !== want) return `${file} is out of date (${have.length} vs ${want.length} chars): run \`${rebuild}\``;
  }
  for (const file of fresh.keys()) if (!committed.includes(file)) return `${file} is missing: run \`${rebuild}\``;
  return undefined;
}
