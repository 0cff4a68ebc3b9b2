/** Where the Vim plugin lives in this repository (the host it starts: BRIDGE_HOST_PATH of @ide-companion/jsonlines). */
import { join } from 'node:path';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** `editors/vim` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = shippedFolder(import.meta.url, '../..', 'editors/vim');

/** What Vim needs at run time; the installer copies these plus the host. */
export const PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['plugin', 'autoload', 'doc', 'README.md'];

/** Where an install puts the host, relative to the plugin root (plugin/…/host.vim looks there first). */
export const INSTALLED_HOST = join('host', 'ide-companion-bridge.mjs');
