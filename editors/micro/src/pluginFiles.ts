/** Where the micro plugin lives in this repository (the host it starts: BRIDGE_HOST_PATH of @ide-companion/jsonlines). */
import { join } from 'node:path';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** `editors/micro` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = shippedFolder(import.meta.url, '../..', 'editors/micro');

/** What micro loads from the plugin's folder; the installer copies these plus the host. */
export const PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['ide-companion.lua', 'repo.json', 'help', 'README.md'];

/** Where an install puts the host, relative to the plugin folder (ide-companion.lua looks there). */
export const INSTALLED_HOST = join('host', 'ide-companion-bridge.mjs');
