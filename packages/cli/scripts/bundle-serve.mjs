#!/usr/bin/env node
// Writes bin/ide-companion-serve.mjs from the sources. Run after `npx tsc -b` (it imports the compiled build module).
import { writeHostBundle } from '@ide-companion/testkit';
import { SERVE_BUNDLE } from '../dist/src/build/bundleServe.js';

const bytes = await writeHostBundle(SERVE_BUNDLE);
console.log(`wrote ${SERVE_BUNDLE.outfile} (${bytes} bytes)`);
