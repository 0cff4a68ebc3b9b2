#!/usr/bin/env node
// Writes host/ide-companion-bridge.mjs from the sources. Run after `npx tsc -b` (it imports the compiled build module).
import { writeHostBundle } from '@ide-companion/testkit';
import { BRIDGE_HOST_BUNDLE } from '../dist/src/build/bundleHost.js';

const bytes = await writeHostBundle(BRIDGE_HOST_BUNDLE);
console.log(`wrote ${BRIDGE_HOST_BUNDLE.outfile} (${bytes} bytes)`);
