/**
 * One-file host bundles (the Neovim host, the JSON-lines bridge host): a host
 * and everything it imports in one ESM file, committed with its plugin so
 * users need Node and nothing else. Each editor's bundle script writes it; a
 * test per editor rebuilds it in memory and fails if the committed file differs.
 */
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';

export interface HostBundle {
  /** The host's main module (TypeScript source). */
  entry: string;
  /** The committed bundle. */
  outfile: string;
  /** The editor package's folder. */
  absWorkingDir: string;
  /** Who generated it and how to regenerate it (one or two `//` lines). */
  header: string;
  /** Modules replaced at build time (e.g. a logger the host never uses). */
  alias?: Record<string, string>;
}

/** The bundle's text, built from the current sources (nothing written). */
export async function buildHostBundle(bundle: HostBundle): Promise<string> {
  const result = await build({
    entryPoints: [bundle.entry],
    absWorkingDir: bundle.absWorkingDir,
    outfile: bundle.outfile,
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
  const file = result.outputFiles?.[0];
  if (!file) throw new Error('esbuild produced no output');
  return file.text;
}

/** Writes the bundle; returns its size in bytes. */
export async function writeHostBundle(bundle: HostBundle): Promise<number> {
  const text = await buildHostBundle(bundle);
  writeFileSync(bundle.outfile, text);
  return Buffer.byteLength(text);
}

/** Why the committed bundle is stale, or undefined when it equals a fresh build. */
export async function staleBundleReason(bundle: HostBundle, rebuild: string): Promise<string | undefined> {
  const { readFileSync } = await import('node:fs');
  const fresh = await buildHostBundle(bundle);
  const committed = readFileSync(bundle.outfile, 'utf8');
  return committed === fresh ? undefined : `${bundle.outfile} is out of date (${committed.length} vs ${fresh.length} chars): run \`${rebuild}\``;
}
