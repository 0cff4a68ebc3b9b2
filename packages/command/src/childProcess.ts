/**
 * node:child_process, loaded on first use. The installers spawn only while
 * installing, and `doctor`, which loads every installer, usually never: loading
 * it (with net, dgram and the streams) costs a command's start ~3 ms.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:child_process') | undefined;

export function childProcess(): typeof import('node:child_process') {
  return (loaded ??= createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process'));
}
