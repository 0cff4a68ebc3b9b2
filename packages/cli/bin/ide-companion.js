#!/usr/bin/env node
// Committed shim so npm can link the bin before the TypeScript build has run.
import { main } from '../dist/src/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`ide-companion: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
