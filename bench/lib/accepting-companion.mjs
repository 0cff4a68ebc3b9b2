#!/usr/bin/env node
/**
 * A companion process whose editor accepts every diff at once, for open-diff:
 * the bench (the client) and the companion are separate processes, as Gemini CLI
 * and an editor are, so the companion's RSS can be read from /proc.
 *
 * stdout, one JSON line each: `{"ready":true,"port":N,"discoveryFile":PATH}` once listening
 * (the token is read from that file, never printed),
 * then `{"shown":"<filePath>","at":EPOCH_MS}` per diff (performance.timeOrigin-based,
 * comparable across processes). stdin: a line `gc` runs a full GC (start node with
 * --expose-gc) and answers `{"gc":true,"heapUsed":BYTES,...}`; end of stdin stops the companion.
 * argv[2]: a private tmpdir for the discovery file.
 */
import * as readline from 'node:readline';
import { Companion } from '@ide-companion/server';

const tmpdir = process.argv[2];
const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const now = () => performance.timeOrigin + performance.now();

const companion = new Companion({
  ideInfo: { name: 'bench-ide', displayName: 'Bench IDE' },
  workspaceRoots: [tmpdir],
  tmpdir,
  editor: {
    showDiff(diff) {
      say({ shown: diff.filePath, at: now() });
      companion.diffs.accept(diff.id);
    },
    diffText() {
      return undefined;
    },
    closeDiff() {},
  },
});
await companion.start();
say({ ready: true, port: companion.port, discoveryFile: companion.discoveryFilePath });

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  if (line.trim() === 'gc' && typeof globalThis.gc === 'function') {
    // Twice, a turn apart: external strings are freed by callbacks that run after the first GC.
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
    globalThis.gc();
    const { heapUsed, external, arrayBuffers } = process.memoryUsage();
    say({ gc: true, heapUsed, external, arrayBuffers });
  }
});
lines.on('close', () => {
  companion.stop().finally(() => process.exit(0));
});
