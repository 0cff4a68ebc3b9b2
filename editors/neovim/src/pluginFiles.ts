/** Where the Neovim plugin lives in this repository (which entries an install copies: packages/client/src/installers/neovim.ts). */
import { join } from 'node:path';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** `editors/neovim` (this file compiles to dist/src/pluginFiles.js). */
export const PLUGIN_ROOT = shippedFolder(import.meta.url, '../..', 'editors/neovim');

/** The committed, self-contained host the plugin starts. */
export const HOST_BUNDLE_PATH = join(PLUGIN_ROOT, 'host', 'ide-companion-host.mjs');
