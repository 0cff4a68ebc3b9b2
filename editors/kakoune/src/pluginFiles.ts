/** Where the Kakoune plugin lives in this repository. */
import { join } from 'node:path';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** `editors/kakoune` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = shippedFolder(import.meta.url, '../..', 'editors/kakoune');
/** The script Kakoune sources, and the bridge it starts (bundled by scripts/bundle.mjs: build/bundleBridge.ts). */
export const PLUGIN_SCRIPT = join(PLUGIN_ROOT, 'rc', 'ide-companion.kak');
export const PLUGIN_BRIDGE = join(PLUGIN_ROOT, 'host', 'kak-bridge.mjs');
