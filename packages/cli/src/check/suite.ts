/**
 * `runCheck`: the conformance suite against one running companion, ours or
 * anyone's. The order matters: the first context update is timed right after
 * connecting; diffs run while the CLI-like session is the only one (so a
 * server that answers the newest session fails session.isolation, not
 * diff.open); hostile probes and bad input come after; liveness and the
 * notification verdicts last.
 */
import { CheckRun, DEFAULT_TIMEOUTS, type CheckTimeouts } from './checkRun.js';
import { checkAgents } from './agentChecks.js';
import { checkFirstContextUpdate, checkNotifications } from './contextChecks.js';
import { checkDiffs, checkSessionIsolation } from './diffChecks.js';
import { checkDiscoveryFile } from './discoveryFileChecks.js';
import { Recorder, type CheckReport } from './report.js';
import { checkSecurity } from './securityChecks.js';
import { checkBadInput, checkStillAnswering } from './sessionChecks.js';
import { markProbes } from './rawHttp.js';
import { resolveTarget, type Target, type TargetOptions } from './target.js';
import { checkTransport } from './transportChecks.js';
import { LOOPBACK_HOST } from '@ide-companion/protocol';

export interface CheckOptions extends TargetOptions {
  timeouts?: Partial<CheckTimeouts>;
  /** Open and close test diffs (default true); false skips every check that would. */
  diffs?: boolean;
  /** Called once the target is known, before anything is sent to it (the command's notice). */
  onTarget?: (target: Target) => void;
  /** On SIGINT/SIGTERM/SIGHUP, close the diffs and sessions opened so far, then exit (for the command; not for libraries). */
  cleanupOnSignal?: boolean;
}

/** Ctrl-C in the middle of a run must not leave diffs open in the user's editor. */
function cleanupOnSignal(run: CheckRun): () => void {
  const handler = (signal: NodeJS.Signals) => {
    void run.cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143));
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.once(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}

/** Runs every check. Throws UsageError when there is nothing to check (no port, no token, unreadable file). */
export async function runCheck(options: CheckOptions = {}): Promise<CheckReport> {
  const target = await resolveTarget(options);
  markProbes(target.token);
  options.onTarget?.(target);
  const record = new Recorder();
  const reportTarget: CheckReport['target'] = {
    host: LOOPBACK_HOST,
    port: target.port,
    discoveryFile: target.discoveryFile,
    tokenFrom: target.tokenFrom,
  };
  if (target.discoveryFile) checkDiscoveryFile({ file: target.discoveryFile, expectedDir: target.discoveryDir }, record);
  else record.skipRemaining(`no discovery file names port ${target.port} in ${target.discoveryDir} (pass --file to check one)`, ['discovery']);

  const run = new CheckRun(target, { ...DEFAULT_TIMEOUTS, ...options.timeouts }, record, options.diffs ?? true);
  const removeSignalCleanup = options.cleanupOnSignal ? cleanupOnSignal(run) : () => undefined;
  try {
    const transport = await checkTransport(run);
    if (!transport.reachable) {
      record.skipRemaining('the companion is not reachable');
      return record.finish(reportTarget, false);
    }
    const session = transport.session;
    if (session) {
      await checkFirstContextUpdate(run, session);
      // Diffs while this is the only session; then a second one joins (isolation).
      await checkDiffs(run, session, transport.diffTools);
      await checkSessionIsolation(run, session, transport.diffTools);
    }
    await checkSecurity(run, session);
    await checkAgents(run, options.env ?? process.env);
    if (session) {
      await checkBadInput(run);
      await checkStillAnswering(run, session);
      checkNotifications(run);
    } else {
      record.skipRemaining('initialize failed (see transport.initialize)');
    }
  } finally {
    removeSignalCleanup();
    await run.cleanup();
  }
  return record.finish(reportTarget, true);
}
