/**
 * The version of ide-companion, read once from this package's package.json
 * (the packages are released together, at one version): the companion's MCP
 * serverInfo, the hosts' `ready`, the CLI's `--version` and the clientInfo it
 * announces. A JSON import, so the bundled hosts carry it inlined.
 */
import pkg from '../package.json' with { type: 'json' };

export const COMPANION_VERSION: string = pkg.version;
