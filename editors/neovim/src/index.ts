/** The Neovim editor end: a Lua plugin and a bundled Node host on the server kit. */
import type { EditorEnd } from '@ide-companion/server/editorEnd';
import { neovimInstaller } from './installer.js';

export { bufferFromText, textFromBuffer, BufferStateSchema, type BufferContent, type BufferState, type FileFormat } from './host/bufferText.js';
export { parseRpcMessage } from './host/rpcMessages.js';
export { PLUGIN_ROOT, HOST_BUNDLE_PATH } from './pluginFiles.js';

export const neovimEnd: EditorEnd = { id: 'neovim', displayName: 'Neovim', installer: neovimInstaller };
