/** Where the Neovim plugin lives in this repository, and which of its entries Neovim needs at run time. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `editors/neovim` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The committed, self-contained host the plugin starts. */
export const HOST_BUNDLE_PATH = join(PLUGIN_ROOT, 'host', 'ide-companion-host.mjs');

/** What an installed copy of the plugin needs (the rest is sources, tests and build output). */
export const PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['plugin', 'lua', 'doc', 'host', 'README.md'];
