export { bufferFromText, textFromBuffer, BufferStateSchema, type BufferContent, type BufferState, type FileFormat } from './host/bufferText.js';
export { EditorEventSchemas, parseEditorEvent, applyContextEvent, type EditorEventName } from './host/editorEvents.js';
export { PLUGIN_ROOT, HOST_BUNDLE_PATH } from './pluginFiles.js';
