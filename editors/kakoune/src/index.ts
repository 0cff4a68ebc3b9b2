/** The Kakoune editor end: a Kakoune script and its bridge to the JSON-lines host (editors/jsonlines). */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { kakouneInstaller } from './installer.js';

export { kakouneInstaller, kakouneTarget } from './installer.js';
export { PLUGIN_ROOT } from './pluginFiles.js';

export const kakouneEnd: EditorEnd = { id: 'kakoune', displayName: 'Kakoune', aliases: ['kak'], installer: kakouneInstaller };
