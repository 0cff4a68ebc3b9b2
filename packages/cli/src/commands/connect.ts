/** `ide-companion connect`: the relay a CLI elsewhere starts over stdio (src/connect/, docs/remote.md). */
import { usageOf } from '@ide-companion/command/commandSpec';
import { CONNECT_COMMAND_SPEC } from '../connect/commandSpec.js';
import { connect } from '../connect/main.js';
import type { Command } from './types.js';

export const connectCommand: Command = {
  name: 'connect',
  usage: usageOf(CONNECT_COMMAND_SPEC),
  run: (argv) => connect(argv),
};
