/** The version of ide-companion: one constant, read from package.json by the server kit. */
export { COMPANION_VERSION as VERSION } from '@ide-companion/shared/version';
