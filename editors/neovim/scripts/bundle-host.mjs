#!/usr/bin/env node
// Writes host/ide-companion-host.mjs from the sources. Run after `npx tsc -b` (it imports the compiled build module).
import { writeHostBundle } from '@ide-companion/testkit';
import { NEOVIM_HOST_BUNDLE } from '../dist/src/build/bundleHost.js';

const bytes = await writeHostBundle(NEOVIM_HOST_BUNDLE);
console.log(`wrote ${NEOVIM_HOST_BUNDLE.outfile} (${bytes} bytes)`);
