/**
 * `ide-companion sandbox`: the exports that make `gemini --sandbox` reach the
 * editor here. The sandbox mounts the project at the same path, so no path
 * map; it passes only what SANDBOX_MOUNTS and SANDBOX_ENV add (comma-separated
 * lists: no value may hold a comma, nor a mount path a colon).
 */
import * as path from 'node:path';
import type { Command } from './types.js';
import { SANDBOX_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, print, printError, printJson, runWithExitCodes } from '../client/output.js';
import { planRemote, RemotePlanError, THERE, writeDiscoveryFileThere } from '../remote/remotePlan.js';
import { shellQuote } from '../remote/shellWords.js';

const usage = usageOf(SANDBOX_SPEC);

/** SANDBOX_MOUNTS and SANDBOX_ENV entries for the companion of `cwd`. */
export async function sandboxVariables(cwd: string): Promise<{ mounts: string[]; env: string[] }> {
  const plan = await planRemote(cwd);
  const there = { cliRoot: plan.hostRoot, relay: THERE.relay, socketPath: path.posix.join(THERE.socketDir, path.basename(plan.socketPath)) };
  const discoveryFile = writeDiscoveryFileThere(plan, there);
  const mounts = [`${plan.socketDir}:${THERE.socketDir}:ro`, `${plan.relay}:${THERE.relay}:ro`, `${discoveryFile}:${THERE.discoveryFile}:ro`];
  const env = [`GEMINI_CLI_IDE_WORKSPACE_PATH=${plan.hostRoot}`];
  for (const m of mounts) {
    const from = m.split(':')[0]!;
    if (from.includes(',') || m.split(':').length !== 3) throw new RemotePlanError(`${from} holds a comma or a colon, which SANDBOX_MOUNTS cannot carry`);
  }
  if (env.some((e) => e.includes(','))) throw new RemotePlanError(`${plan.hostRoot} holds a comma, which SANDBOX_ENV cannot carry`);
  return { mounts, env };
}

export const sandboxCommand: Command = {
  name: 'sandbox',
  usage,
  run: (argv) =>
    runWithExitCodes('sandbox', usage, async () => {
      const { values } = parseCommandArgs(SANDBOX_SPEC, argv);
      try {
        const { mounts, env } = await sandboxVariables(process.cwd());
        if (values['json'] === true) {
          printJson({ SANDBOX_MOUNTS: mounts.join(','), SANDBOX_ENV: env.join(',') });
          return EXIT.OK;
        }
        // Added to what the user already exports, never in place of it.
        print(
          [
            `export SANDBOX_MOUNTS="\${SANDBOX_MOUNTS:+$SANDBOX_MOUNTS,}"${shellQuote(mounts.join(','))}`,
            `export SANDBOX_ENV="\${SANDBOX_ENV:+$SANDBOX_ENV,}"${shellQuote(env.join(','))}`,
          ].join('\n'),
        );
        return EXIT.OK;
      } catch (err) {
        if (!(err instanceof RemotePlanError)) throw err;
        printError('sandbox', err.message);
        return EXIT.NO;
      }
    }),
};
