/**
 * Process-wide cleanup: discovery files must go on normal exit and on SIGINT,
 * SIGTERM and SIGHUP. Cleanups run synchronously (an exit handler cannot wait).
 * After a signal, if nobody else listens for it, the signal's default action
 * is restored and re-raised, so the process still ends the way it would have.
 */
const cleanups = new Set<() => void>();
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installedExit = false;
let signalUsers = 0;

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    try {
      cleanup();
    } catch {
      // Best effort: the process is going away.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runCleanups();
  const othersListen = process.listenerCount(signal) > 1;
  if (othersListen) return;
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  signalUsers = 0;
  process.kill(process.pid, signal);
}

/** Registers a synchronous cleanup for exit (and for signals when `signals` is true). Returns its removal. */
export function registerExitCleanup(cleanup: () => void, signals: boolean): () => void {
  cleanups.add(cleanup);
  if (!installedExit) {
    process.on('exit', runCleanups);
    installedExit = true;
  }
  if (signals) {
    if (signalUsers++ === 0) for (const s of SIGNALS) process.on(s, onSignal);
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    cleanups.delete(cleanup);
    if (signals && --signalUsers === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
  };
}
