#!/usr/bin/env node
// Writes host/ide-companion-host.mjs from the sources. Run after `npx tsc -b` (it imports the compiled build module).
import { writeFileSync } from 'node:fs';
import { buildHostBundle } from '../dist/src/build/bundleHost.js';
import { HOST_BUNDLE_PATH } from '../dist/src/pluginFiles.js';

const text = await buildHostBundle();
writeFileSync(HOST_BUNDLE_PATH, text);
console.log(`wrote ${HOST_BUNDLE_PATH} (${Buffer.byteLength(text)} bytes)`);
