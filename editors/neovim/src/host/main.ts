/**
 * The Neovim host: started by the plugin with `jobstart([node, host], {rpc = true})`,
 * it speaks msgpack-RPC with Neovim over its own stdin/stdout and runs the
 * companion (MCP over loopback HTTP) for that Neovim. It exits when Neovim
 * closes the channel or asks it to stop.
 */
import { format } from 'node:util';
import { attach } from 'neovim';
import { HOST_GAVE_UP_EXIT_CODE, MAX_MESSAGE_BYTES, oversizeMessage } from '@ide-companion/protocol';
import { describeError } from '@ide-companion/server/logger';
import { hostRestart, hostStoppedCleanly } from '@ide-companion/server/hostRestarts';
import { FileLogger } from './fileLogger.js';
import { LuaBridge } from './luaBridge.js';
import { msgpackFrames, oversizeAnswer } from './msgpackFrames.js';
import { DEFAULT_IDE_INFO, NeovimHost } from './neovimHost.js';

const MIN_NODE_MAJOR = 20;

const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < MIN_NODE_MAJOR) {
  process.stderr.write(`ide-companion needs Node.js >= ${MIN_NODE_MAJOR}; this is ${process.version}\n`);
  process.exit(2);
}

const logger = new FileLogger();
// Started again after a death: counted and backed off before Neovim's messages are read (server/hostRestarts.ts).
const restart = await hostRestart(DEFAULT_IDE_INFO.name, { logger });

// The RPC client's own logging goes to our log, warnings and errors only:
// its debug lines would carry request arguments (file contents).
const clientLogger = {
  level: 'warn',
  debug: () => undefined,
  info: () => undefined,
  warn: (...args: unknown[]) => logger.warn(format(...args)),
  error: (...args: unknown[]) => logger.error(format(...args)),
};

// Each message from Neovim at most MAX_MESSAGE_BYTES: a larger one is logged and dropped (a request is
// answered with an error), and the decoder never sees it.
const frames = msgpackFrames(process.stdin, {
  maxBytes: MAX_MESSAGE_BYTES,
  onOversize: (head) => {
    logger.error('refused a message from Neovim', { error: oversizeMessage(MAX_MESSAGE_BYTES) });
    const answer = oversizeAnswer(head, oversizeMessage(MAX_MESSAGE_BYTES));
    if (answer) process.stdout.write(answer);
  },
});
const nvim = attach({
  reader: frames,
  writer: process.stdout,
  options: { logger: clientLogger as never },
});
const lua = new LuaBridge(nvim);
const host = new NeovimHost(lua, logger, (code) => {
  if (code === 0) hostStoppedCleanly();
  process.exit(code);
});
// What the restart says; a host that gives up says it and exits, serving nothing.
const said = restart.said && lua.call('ide_companion.host', 'on_say', restart.said.level, restart.said.message).catch(() => undefined);
if (restart.gaveUp) void said?.then(() => process.exit(HOST_GAVE_UP_EXIT_CODE));

/** Neovim is gone: nothing more can be asked of it, and the host stops. */
const neovimGone = (reason: string) => {
  lua.close();
  void host.shutdown(reason);
};

if (!restart.gaveUp) nvim.on('notification', (method: string, args: unknown) => host.handle(method, args));
nvim.on('disconnect', () => neovimGone('Neovim closed the channel'));
process.stdin.on('end', () => neovimGone('stdin closed'));
process.on('uncaughtException', (err) => logger.error('uncaught exception', { error: describeError(err) }));
process.on('unhandledRejection', (err) => logger.error('unhandled rejection', { error: describeError(err) }));
