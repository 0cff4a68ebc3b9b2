#!/usr/bin/env node
// `npm run bundle` (and the end of `npm install`, `npm run release`, and `ide-companion install` from a
// clone): writes every generated bundle from the compiled workspaces, in parallel. None is in git.
// Run after `npx tsc -b` (it imports the compiled build modules). `--if-missing`: only when one is absent.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const load = (file) => import(new URL(`../${file}`, import.meta.url).href);

const [{ writeHostBundle, writeSdkChunk }, { sdkChunkPath }, neovim, jsonlines, kakoune, serve, mcp, relay] = await Promise.all([
  load('packages/bundler/dist/src/bundle.js'),
  load('packages/server/dist/src/shippedFiles.js'),
  load('editors/neovim/dist/src/build/bundleHost.js'),
  load('editors/jsonlines/dist/src/build/bundleHost.js'),
  load('editors/kakoune/dist/src/build/bundleBridge.js'),
  load('packages/cli/dist/src/build/bundleServe.js'),
  load('packages/cli/dist/src/mcp/build/bundle.js'),
  load('packages/cli/dist/src/connect/build/bundle.js'),
]);
const bundles = [
  neovim.NEOVIM_HOST_BUNDLE,
  jsonlines.BRIDGE_HOST_BUNDLE,
  kakoune.KAK_BRIDGE_BUNDLE,
  serve.SERVE_BUNDLE,
  mcp.MCP_SERVER_BUNDLE,
  relay.RELAY_BUNDLE,
];
const sdk = { entry: createRequire(import.meta.url).resolve('@ide-companion/server/sdk'), outfile: sdkChunkPath() };

if (process.argv.includes('--if-missing') && [sdk.outfile, ...bundles.map((b) => b.outfile)].every((file) => existsSync(file))) process.exit(0);

const started = performance.now();
const sizes = await Promise.all([
  writeSdkChunk(sdk.entry, sdk.outfile).then((bytes) => [sdk.outfile, bytes]),
  ...bundles.map((b) => writeHostBundle(b).then((bytes) => [b.outfile, bytes])),
]);
for (const [file, bytes] of sizes) console.error(`bundle: ${relative(ROOT, file)} (${(bytes / 1024).toFixed(0)} KiB)`);
console.error(`bundle: ${sizes.length} bundles in ${((performance.now() - started) / 1000).toFixed(1)} s`);
