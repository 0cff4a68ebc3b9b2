/**
 * Runs the scenarios against one end: one node:test `describe` per end, one
 * test per scenario, one session of the end for them all (started once, in a
 * workspace holding every scenario's files; the host-killing fault last).
 * A scenario the end cannot run is reported skipped with the driver's reason;
 * a driver that lacks an action without giving a reason fails.
 */
import { after, before, describe, test } from 'node:test';
import type { EndAction, EndDriver, EndSession } from './driver.js';
import { AGENT_TERMINAL_SCENARIO } from './agentTerminal.js';
import { connectGemini, type GeminiFace } from './faces.js';
import { FACE_SCENARIOS } from './faceScenarios.js';
import { HOSTILE_PATH_SCENARIOS } from './hostilePaths.js';
import { REAL_AGENT_SCENARIOS } from './realAgents.js';
import { SCENARIOS as CORE_SCENARIOS, type Scenario, type ScenarioContext } from './scenarios.js';

/** Every scenario, in order: every face's, the real agents before the faults (the last kills the host). */
const SCENARIOS: readonly Scenario[] = [
  ...CORE_SCENARIOS.filter((s) => !s.name.startsWith('fault:')),
  ...FACE_SCENARIOS,
  ...HOSTILE_PATH_SCENARIOS,
  ...REAL_AGENT_SCENARIOS,
  AGENT_TERMINAL_SCENARIO,
  ...CORE_SCENARIOS.filter((s) => s.name.startsWith('fault:')),
];

/** The session's methods each action is (the rest are the driver's own or its start's). */
const SESSION_ACTIONS: Partial<Record<EndAction, readonly string[]>> = {
  moveCursor: ['moveCursor'],
  select: ['select'],
  editProposal: ['editProposal'],
  cursor: ['cursor'],
  killHost: ['killHost'],
  setWarning: ['setWarning'],
  mention: ['mention'],
  ampBuffer: ['bufferText', 'undo'],
  swapOnOpen: ['swapOnOpen', 'bufferText'],
  readOnlyBuffer: ['setReadOnly'],
  changedOnDisk: ['revert'],
};

/** Why `driver` cannot run `scenario` (its own words), or undefined when it can; throws when a driver lacks an action without saying why. */
export function unsupportedReason(driver: EndDriver, session: EndSession | undefined, scenario: Scenario): string | undefined {
  for (const need of scenario.needs) {
    const reason = driver.unsupported[need];
    if (reason) return `unsupported by ${driver.name}: ${reason}`;
    const missing = SESSION_ACTIONS[need]?.find((m) => typeof (session as unknown as Record<string, unknown> | undefined)?.[m] !== 'function');
    if (session && missing) throw new Error(`the ${driver.name} driver has no ${missing} and gives no reason in its unsupported table`);
  }
  return undefined;
}

export interface SuiteOptions {
  /** Why the whole end cannot run here (a missing program), as external.ts's skipUnless says; false to run. */
  skip?: string | false;
  /** Per scenario (default 90 s). */
  timeoutMs?: number;
}

/** Registers the conformance suite for `driver`'s end. */
export function conformanceSuite(driver: EndDriver, options: SuiteOptions = {}): void {
  const files = Object.assign({}, ...SCENARIOS.map((s) => s.files)) as Record<string, string>;
  describe(`conformance: ${driver.name}`, { skip: options.skip ?? false, timeout: 20 * 60_000 }, () => {
    let session: EndSession | undefined;
    before(async () => {
      session = await driver.start(files);
    });
    after(async () => {
      await session?.close();
      await driver.dispose?.();
    });
    for (const scenario of SCENARIOS) {
      // Declared unsupported: known before the end starts, so it is said in the test's own line.
      const declared =
        scenario.needs.map((n) => driver.unsupported[n]).find(Boolean) ??
        (scenario.face && driver.unsupportedForFace?.[scenario.face.name]?.[scenario.face.aspect]);
      // A program the scenario runs (a real agent CLI) missing: skipped here, a failure in CI (external.ts).
      const missing = scenario.requires?.();
      const skip = scenario.unsupported ?? (declared ? `unsupported by ${driver.name}: ${declared}` : missing);
      test(scenario.name, { timeout: scenario.timeoutMs ?? options.timeoutMs ?? 90_000, ...(skip && { skip }) }, async (t) => {
        if (!session) throw new Error(`${driver.name} did not start`);
        // A scenario with start options gets a session of its own, started so.
        const own = scenario.startOptions && (await driver.start(files, scenario.startOptions));
        try {
          const reason = unsupportedReason(driver, own || session, scenario);
          if (reason) throw new Error(`unexpected: ${reason}`);
          await runScenario(driver, own || session, scenario, (text) => t.diagnostic(text));
        } finally {
          await own?.close();
        }
      });
    }
  });
}

async function runScenario(driver: EndDriver, session: EndSession, scenario: Scenario, note: (text: string) => void): Promise<void> {
  const deferred: Array<() => Promise<unknown> | unknown> = [];
  const faces: GeminiFace[] = [];
  const ctx: ScenarioContext = {
    driver,
    session,
    file: (name) => `${session.workspace}/${name}`,
    async gemini() {
      const face = await connectGemini(session);
      faces.push(face);
      return face;
    },
    defer: (fn) => deferred.push(fn),
    note,
  };
  try {
    await scenario.run(ctx);
  } finally {
    for (const fn of deferred.reverse()) await Promise.resolve(fn()).catch(() => undefined);
    for (const face of faces) await face.close().catch(() => undefined);
  }
}
