export { vimInstaller, vimPackageTarget } from './installer.js';
export { PLUGIN_ROOT, BRIDGE_HOST_PATH } from './pluginFiles.js';
