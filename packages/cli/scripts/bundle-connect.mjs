#!/usr/bin/env node
// Writes bin/ide-companion-connect.mjs from the sources. Run after `npx tsc -b` (it imports the compiled build module).
import { writeHostBundle } from '@ide-companion/testkit';
import { RELAY_BUNDLE } from '../dist/src/connect/build/bundle.js';

const bytes = await writeHostBundle(RELAY_BUNDLE);
console.log(`wrote ${RELAY_BUNDLE.outfile} (${bytes} bytes)`);
