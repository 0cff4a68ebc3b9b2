/**
 * Loaded into a host under soak (hostSoak.ts) with NODE_OPTIONS=--import, so
 * the host's own code is unchanged: /proc shows its RSS and descriptors, not
 * its heap or timers. On SIGUSR2 it runs a full GC and writes
 * `{seq, heapUsed, resources}` to $IDE_COMPANION_SOAK_PROBE_DIR/probe-PID.json
 * (written beside, then renamed: the reader never sees half a file).
 * Without that variable (a child process that inherited NODE_OPTIONS), nothing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const dir = process.env['IDE_COMPANION_SOAK_PROBE_DIR'];
if (dir) {
  // The host runs without --expose-gc; a fresh context picks up the flag.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const file = path.join(dir, `probe-${process.pid}.json`);
  let seq = 0;
  // process.stderr is made on first use (in the Neovim host, at some point of the day): made now, its handle
  // is in the warm-up's count rather than counted as a resource left at the end.
  void process.stderr;
  process.on('SIGUSR2', () => {
    gc();
    // Twice, a turn apart: external strings are freed by callbacks that run after the first GC.
    setImmediate(() => {
      gc();
      const resources = {};
      for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
      seq++;
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ seq, heapUsed: process.memoryUsage().heapUsed, resources }));
      fs.renameSync(`${file}.tmp`, file);
    });
  });
}
