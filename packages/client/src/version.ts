/**
 * The version of ide-companion, read once from this package's package.json
 * (the packages are released together, at one version). The CLI's
 * `--version` and the clientInfo we announce both use it.
 */
import { createRequire } from 'node:module';

// Compiled to dist/src/version.js: the package root is two levels up.
const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

export const VERSION: string = pkg.version;
