/** Where the Kakoune plugin lives in this repository. */
import { join } from 'node:path';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** `editors/kakoune` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = shippedFolder(import.meta.url, '../..', 'editors/kakoune');
/** The script Kakoune sources, and the bridge it starts (compiled, Node built-ins only: it runs as it is). */
export const PLUGIN_SCRIPT = join(PLUGIN_ROOT, 'rc', 'ide-companion.kak');
export const PLUGIN_BRIDGE = join(PLUGIN_ROOT, 'dist', 'src', 'kakBridge.js');
