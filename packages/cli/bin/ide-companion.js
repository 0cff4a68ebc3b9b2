#!/usr/bin/env node
// Committed shim so npm can link the bin before the TypeScript build has run.
// `serve` and `mcp` run from their bundles (start time and memory: docs/benchmarks.md).
const argv = process.argv.slice(2);
const run =
  argv[0] === 'serve'
    ? import('./ide-companion-serve.mjs').then((m) => m.serve(argv.slice(1)))
    : argv[0] === 'mcp'
      ? import('../gemini-extension/ide-companion-mcp.mjs').then((m) => m.mcp(argv.slice(1)))
      : import('../dist/src/main.js').then((m) => m.main(argv));

run.then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    // In a clone, dist/ and the bundles are built by `npm install` (git holds sources only).
    const unbuilt = err?.code === 'ERR_MODULE_NOT_FOUND' && /ide-companion-(serve|mcp)\.mjs|dist\/src\/main\.js/.test(String(err.message));
    process.stderr.write(`ide-companion: ${err instanceof Error ? err.message : String(err)}\n`);
    if (unbuilt) process.stderr.write('ide-companion: this clone is not built: run `npm install` (or `npx tsc -b && npm run bundle`) in it\n');
    process.exitCode = 2;
  },
);
