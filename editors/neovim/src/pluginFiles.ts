/** Where the Neovim plugin lives in this repository (which entries an install copies: packages/client/src/installers/neovim.ts). */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `editors/neovim` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The committed, self-contained host the plugin starts. */
export const HOST_BUNDLE_PATH = join(PLUGIN_ROOT, 'host', 'ide-companion-host.mjs');
