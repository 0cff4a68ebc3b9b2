import { serveCommand } from './serve.js';
import { bridgeCommand } from './bridge.js';
import type { Command } from './types.js';

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: Command[] = [serveCommand, bridgeCommand];
