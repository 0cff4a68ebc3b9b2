/** Where the Vim plugin lives in this repository (the host it starts: BRIDGE_HOST_PATH of @ide-companion/jsonlines). */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `editors/vim` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What Vim needs at run time; the installer copies these plus the host. */
export const PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['plugin', 'autoload', 'doc', 'README.md'];

/** Where an install puts the host, relative to the plugin root (plugin/…/host.vim looks there first). */
export const INSTALLED_HOST = join('host', 'ide-companion-bridge.mjs');
