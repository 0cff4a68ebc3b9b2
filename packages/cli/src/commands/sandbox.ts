/**
 * `ide-companion sandbox [--podman|--docker]`: the exports that make gemini's
 * own sandbox reach the editor here. The sandbox mounts the project at the
 * same path, so no path map; it passes only what SANDBOX_MOUNTS and
 * SANDBOX_ENV add (comma-separated lists: no value may hold a comma, nor a
 * mount path a colon). The exports are whole values, computed from what this
 * shell exports already with our entries taken out first: running it twice
 * in one shell mounts nothing twice (podman refuses a duplicate destination).
 *
 * Two things of Gemini CLI 0.61 on Debian 12 are handled here (docs/remote.md):
 * `--sandbox` sets GEMINI_SANDBOX=true, which picks docker over a podman the
 * user named, so the runtime is exported as GEMINI_SANDBOX and the recipe is
 * `gemini` without `--sandbox`; and the CLI always passes `--add-host
 * host.docker.internal:host-gateway`, which Podman before 5 refuses, so with
 * such a podman a `podman` that drops that one option goes first on PATH.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onPath } from '@ide-companion/command/pluginInstall';
import type { Command } from './types.js';
import { SANDBOX_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, print, printError, printJson, runWithExitCodes } from '../client/output.js';
import { planRemote, RemotePlanError, THERE, thereFor, writeDiscoveryFileThere } from '../remote/remotePlan.js';
import { shellQuote } from '../remote/shellWords.js';

const usage = usageOf(SANDBOX_SPEC);

/** Where our mounts go in the sandbox: an entry of the user's with one of these destinations is ours from an earlier run. */
const OUR_DESTINATIONS: readonly string[] = [THERE.socketDir, THERE.relay, THERE.discoveryFile];
const WORKSPACE_VARIABLE = 'GEMINI_CLI_IDE_WORKSPACE_PATH=';

export interface SandboxVariables {
  SANDBOX_MOUNTS: string;
  SANDBOX_ENV: string;
  GEMINI_SANDBOX: 'podman' | 'docker';
  /** PATH with the podman shim first, when this podman needs it. */
  PATH?: string;
  served: boolean;
}

/** A list of the user's, our entries of an earlier run taken out, ours added. */
function merged(existing: string | undefined, ours: string[], isOurs: (entry: string) => boolean): string {
  const kept = (existing ?? '').split(',').filter((e) => e.trim() !== '' && !isOurs(e.trim()));
  return [...kept, ...ours].join(',');
}

/** The podman major version, or undefined when it does not say. */
function podmanMajor(podman: string): number | undefined {
  const r = spawnSync(podman, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const m = /(\d+)\.\d+/.exec(r.stdout ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * A `podman` that drops `--add-host host.docker.internal:host-gateway` (the
 * host gateway serves the port path only; the relay needs no network) and
 * runs the real one with everything else as given.
 */
export function podmanShimScript(realPodman: string): string {
  return [
    '#!/bin/sh',
    '# ide-companion sandbox: Podman before 5 refuses host-gateway, which gemini --sandbox always adds (docs/remote.md).',
    'skip=0',
    'for arg; do',
    '  shift',
    '  if [ "$skip" = 1 ]; then skip=0; [ "$arg" = "host.docker.internal:host-gateway" ] && continue; set -- "$@" --add-host; fi',
    '  if [ "$arg" = "--add-host" ]; then skip=1; continue; fi',
    '  set -- "$@" "$arg"',
    'done',
    `exec ${shellQuote(realPodman)} "$@"`,
    '',
  ].join('\n');
}

/** The variables for the companion of `cwd`, merged into what `env` holds. */
export async function sandboxVariables(cwd: string, runtime: 'podman' | 'docker' | undefined, env: NodeJS.ProcessEnv = process.env): Promise<SandboxVariables> {
  const plan = await planRemote(cwd, env);
  const discoveryFile = writeDiscoveryFileThere(plan, thereFor(plan, plan.hostRoot));
  const mounts = [`${plan.socketDir}:${THERE.socketDir}:ro`, `${plan.relay}:${THERE.relay}:ro`, `${discoveryFile}:${THERE.discoveryFile}:ro`];
  for (const m of mounts) {
    const from = m.split(':')[0]!;
    if (from.includes(',') || m.split(':').length !== 3) throw new RemotePlanError(`${from} holds a comma or a colon, which SANDBOX_MOUNTS cannot carry`);
  }
  if (plan.hostRoot.includes(',')) throw new RemotePlanError(`${plan.hostRoot} holds a comma, which SANDBOX_ENV cannot carry`);
  const shimDir = path.join(plan.socketDir, 'bin');
  // The user's PATH without our shim folder: the runtime found is the real one (an earlier run's shim stands first).
  const userPath = (env['PATH'] ?? '').split(path.delimiter).filter((d) => d !== shimDir && d !== '');
  const onUserPath = (name: string) => onPath(name, { PATH: userPath.join(path.delimiter) });
  const named = env['GEMINI_SANDBOX']?.trim().toLowerCase();
  const chosen = runtime ?? (named === 'podman' || named === 'docker' ? named : onUserPath('docker') ? 'docker' : onUserPath('podman') ? 'podman' : undefined);
  if (!chosen) throw new RemotePlanError('neither podman nor docker is on PATH: gemini --sandbox needs one (or give --podman or --docker)');
  const out: SandboxVariables = {
    SANDBOX_MOUNTS: merged(env['SANDBOX_MOUNTS'], mounts, (e) => OUR_DESTINATIONS.includes(e.split(':')[1] ?? '')),
    SANDBOX_ENV: merged(env['SANDBOX_ENV'], [`${WORKSPACE_VARIABLE}${plan.hostRoot}`], (e) => e.startsWith(WORKSPACE_VARIABLE)),
    GEMINI_SANDBOX: chosen,
    served: plan.served,
  };
  const podman = chosen === 'podman' ? onUserPath('podman') : undefined;
  const major = podman === undefined ? undefined : podmanMajor(podman);
  if (podman !== undefined && major !== undefined && major < 5) {
    fs.mkdirSync(shimDir, { mode: 0o700, recursive: true });
    const shim = path.join(shimDir, 'podman');
    fs.writeFileSync(`${shim}.tmp`, podmanShimScript(podman), { mode: 0o700 });
    fs.renameSync(`${shim}.tmp`, shim);
    out.PATH = [shimDir, ...userPath].join(path.delimiter);
  }
  return out;
}

export const sandboxCommand: Command = {
  name: 'sandbox',
  usage,
  run: (argv) =>
    runWithExitCodes('sandbox', usage, async () => {
      const { values } = parseCommandArgs(SANDBOX_SPEC, argv);
      if (values['podman'] === true && values['docker'] === true) throw new UsageError('give one of --podman or --docker');
      const runtime = values['podman'] === true ? 'podman' : values['docker'] === true ? 'docker' : undefined;
      try {
        const { served, ...variables } = await sandboxVariables(process.cwd(), runtime);
        if (values['json'] === true) {
          printJson({ ...variables, served });
          return EXIT.OK;
        }
        if (!served) printError('sandbox', 'no companion serves this folder yet: gemini in the sandbox connects once your editor runs here (/ide enable)');
        // Whole values: what the user exported already, our entries of an earlier run replaced (see above).
        print(
          Object.entries(variables)
            .map(([name, value]) => `export ${name}=${shellQuote(value as string)}`)
            .join('\n'),
        );
        return EXIT.OK;
      } catch (err) {
        if (!(err instanceof RemotePlanError)) throw err;
        printError('sandbox', err.message);
        return EXIT.NO;
      }
    }),
};
