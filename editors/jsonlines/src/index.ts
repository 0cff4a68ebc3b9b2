/** The JSON-lines editor end: `ide-companion bridge` and its bundled host, for editor plugins that are scripts. */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { bridgeCommand } from './bridgeCommand.js';

export { JsonLinesBridge, type JsonLinesBridgeOptions } from './jsonLinesBridge.js';
export { bridgeCommand } from './bridgeCommand.js';
export { BRIDGE_HOST_PATH, bridgeHostFiles } from './build/bundleHost.js';

export const jsonLinesEnd: EditorEnd = { id: 'jsonlines', displayName: 'JSON-lines bridge', commands: [bridgeCommand] };
