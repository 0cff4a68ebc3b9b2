/** The Vim editor end: a Vimscript plugin speaking JSON lines to the bridge host (editors/jsonlines). */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { vimInstaller } from './installer.js';

export { vimInstaller, vimPackageTarget } from './installer.js';
export { PLUGIN_ROOT } from './pluginFiles.js';

export const vimEnd: EditorEnd = { id: 'vim', displayName: 'Vim', aliases: ['gvim', 'macvim'], installer: vimInstaller };
