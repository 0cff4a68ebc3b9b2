#!/usr/bin/env node
/**
 * The companion side of the soak (soak.ts): a Companion whose editor accepts
 * every diff, fed editor events in bulk, reporting what it holds. Run with
 * --expose-gc. argv[2]: a private tmpdir (the discovery file, the workspace's
 * files are under it).
 *
 * stdout, one JSON line each: `{"ready":true,"port":N,"discoveryFile":PATH}`;
 * then one answer per stdin line:
 * - `events N`: applies N editor events (focus, cursor, selection over the
 *   workspace's files, in turn), yielding to the event loop every 500 so the
 *   coalesced notifications go out as they would; answers `{"events":N}`;
 * - `stats`: a full GC, then `{"stats":{heapUsed,rss,fds,resources}}`, fds from
 *   /proc/self/fd and resources from process.getActiveResourcesInfo() (timers,
 *   sockets, ...);
 * end of stdin stops the companion.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Companion } from '@ide-companion/server/companion';
import { applyEditorEvent } from '@ide-companion/server/editorEvents';

const tmpdir = process.argv[2];
const workspace = path.join(tmpdir, 'ws');
const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
// process.stderr is made on first use (a warning logged at some point of the day): made now, its pipe is in
// the warm-up's count rather than counted as a resource left at the end.
void process.stderr;
const FILES = 50;
const files = [];
fs.mkdirSync(workspace, { recursive: true });
for (let i = 0; i < FILES; i++) {
  const file = path.join(workspace, `file${i}.ts`);
  fs.writeFileSync(file, `export const n = ${i};\n`.repeat(200));
  files.push(file);
}

const companion = new Companion({
  ideInfo: { name: 'soak-ide', displayName: 'Soak IDE' },
  workspaceRoots: [workspace],
  tmpdir,
  editor: {
    showDiff(diff) {
      // As a user who accepts after a moment: the answer leaves on a later turn.
      setImmediate(() => companion.diffs.accept(diff.id));
    },
    diffText() {
      return undefined;
    },
    closeDiff() {},
  },
});
await companion.start();
say({ ready: true, port: companion.port, discoveryFile: companion.discoveryFilePath, workspace });

let n = 0;
function nextEvent() {
  const file = files[n % FILES];
  const line = 1 + (n % 200);
  const character = 1 + (n % 40);
  const kind = n % 10;
  n++;
  if (kind === 0) return { type: 'focus', path: file, cursor: { line, character } };
  if (kind === 9) return { type: 'selection', path: file, selectedText: `const n = ${n};` };
  return { type: 'cursor', path: file, cursor: { line, character } };
}

async function applyEvents(count) {
  for (let i = 0; i < count; i++) {
    applyEditorEvent(companion, nextEvent());
    if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
  }
}

async function stats() {
  // A moment first: a timer of the last slice (the coalescer's 50 ms window) is not one left behind.
  await new Promise((resolve) => setTimeout(resolve, 200));
  // Twice, a turn apart: external strings are freed by callbacks that run after the first GC.
  globalThis.gc?.();
  await new Promise((resolve) => setImmediate(resolve));
  globalThis.gc?.();
  const resources = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss, fds: fs.readdirSync('/proc/self/fd').length, resources };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  if (command === 'events') {
    await applyEvents(Number(arg));
    say({ events: Number(arg) });
  } else if (command === 'stats') {
    say({ stats: await stats() });
  }
});
lines.on('close', () => {
  companion.stop().finally(() => process.exit(0));
});
