export type { EditorInstaller, InstallOptions, InstallResult } from './types.js';
export { INSTALLERS, findInstaller, registerInstaller } from './registry.js';
