/** The Neovim editor end: a Lua plugin and a bundled Node host on the server kit. */
export { bufferFromText, textFromBuffer, BufferStateSchema, type BufferContent, type BufferState, type FileFormat } from './host/bufferText.js';
export { parseRpcMessage } from './host/rpcMessages.js';
export { PLUGIN_ROOT, HOST_BUNDLE_PATH } from './pluginFiles.js';
export { neovimEnd } from './end.js';
