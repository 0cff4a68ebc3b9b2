/** Where the Vim plugin and the bridge host it starts live in this repository. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `editors/vim` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The committed, self-contained JSON-lines host (editors/jsonlines); the plugin finds it here in a checkout. */
export const BRIDGE_HOST_PATH = resolve(PLUGIN_ROOT, '..', 'jsonlines', 'host', 'ide-companion-bridge.mjs');

/** What Vim needs at run time; the installer copies these plus the host. */
export const PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['plugin', 'autoload', 'doc', 'README.md'];

/** Where an install puts the host, relative to the plugin root (plugin/…/host.vim looks there first). */
export const INSTALLED_HOST = join('host', 'ide-companion-bridge.mjs');
