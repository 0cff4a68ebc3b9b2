// Stand-in for winston inside the bundled host. The neovim client requires
// winston when it loads but uses it only when no logger is passed to attach(),
// and the host always passes one. Anything that does reach here gets a silent logger.
'use strict';
const noop = () => undefined;
const format = new Proxy(() => ({}), { get: () => () => ({}) });
module.exports = {
  createLogger: () => ({ level: 'warn', add: noop, debug: noop, info: noop, warn: noop, error: noop }),
  format,
  transports: { File: function File() {}, Console: function Console() {} },
};
