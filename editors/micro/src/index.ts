/** The micro editor end: a Lua plugin speaking JSON lines to the bridge host (editors/jsonlines). */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { microInstaller } from './installer.js';

export { microInstaller, microPluginTarget, microConfigDir } from './installer.js';
export { PLUGIN_ROOT } from './pluginFiles.js';

export const microEnd: EditorEnd = { id: 'micro', displayName: 'micro', installer: microInstaller };
