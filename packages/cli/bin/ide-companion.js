#!/usr/bin/env node
// Committed shim so npm can link the bin before the TypeScript build has run.
// `serve` runs from its one-file bundle (start time and memory: docs/benchmarks.md).
const argv = process.argv.slice(2);
const run =
  argv[0] === 'serve' ? import('./ide-companion-serve.mjs').then((m) => m.serve(argv.slice(1))) : import('../dist/src/main.js').then((m) => m.main(argv));

run.then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`ide-companion: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
