#!/usr/bin/env node
/**
 * The smallest process that is a companion: a Companion for argv[2] (a
 * workspace), nothing else. serve-start runs it beside `ide-companion serve`
 * as a baseline for what serve adds (workspace watcher, terminal review).
 * The Companion removes its discovery file on SIGTERM by itself.
 */
import { Companion } from '@ide-companion/server';

const workspace = process.argv[2];
if (!workspace) {
  process.stderr.write('usage: bare-companion.mjs WORKSPACE\n');
  process.exit(2);
}
const companion = new Companion({ ideInfo: { name: 'bench-ide', displayName: 'Bench IDE' }, workspaceRoots: [workspace] });
await companion.start();
