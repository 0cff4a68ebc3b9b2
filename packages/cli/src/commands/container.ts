/**
 * `ide-companion container --podman|--docker [--at PATH]`: the options to add
 * to the user's `podman run` / `docker run` so gemini inside reaches the editor
 * here with no network at all: the project mounted at PATH, the stable
 * address's folder (workspaceSockets.ts) and the relay mounted, and this
 * project's own folder of discovery files (no port, the relay over stdio,
 * paths mapped) where gemini looks. One line of words for `podman run --rm -it $(ide-companion container
 * --podman) IMAGE gemini` (docs/remote.md). Nothing in it names one editor's
 * run: made once (a devcontainer.json, a compose file), before or after the
 * editor starts, it reaches whichever companion serves the project.
 */
import * as path from 'node:path';
import type { Command } from './types.js';
import { CONTAINER_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, print, printError, printJson, runWithExitCodes } from '../client/output.js';
import { planRemote, relayArgs, RemotePlanError, THERE, thereFor, writeContainerFiles } from '../remote/remotePlan.js';
import { shellLine } from '../remote/shellWords.js';

const usage = usageOf(CONTAINER_SPEC);

/** The `run` options for the plan; `--user` for Docker, whose daemon would run the CLI as root against files that are ours. */
export function containerArgs(options: { runtime: 'podman' | 'docker'; cwd: string; at?: string }) {
  return planRemote(options.cwd).then((plan) => {
    const cliRoot = path.posix.resolve(options.at ?? `/workspaces/${path.basename(plan.hostRoot)}`);
    const there = thereFor(plan, cliRoot, THERE.stableRelay);
    const discoveryDir = writeContainerFiles(plan, there);
    const workdir = plan.relative ? path.posix.join(cliRoot, ...plan.relative.split(path.sep)) : cliRoot;
    // Two mounts of the stable folder, named by no editor's run: its sockets and relay, and this project's own
    // folder of discovery files (only this project's: gemini would take another's at the same path).
    const args = [
      '-v',
      `${plan.hostRoot}:${cliRoot}`,
      '-w',
      workdir,
      '-v',
      `${plan.socketDir}:${THERE.socketDir}:ro`,
      '-v',
      `${discoveryDir}:${THERE.discoveryDir}:ro`,
      // The same, for a CLI that does not find the file (an image with another TMPDIR).
      '-e',
      `GEMINI_CLI_IDE_WORKSPACE_PATH=${cliRoot}`,
      '-e',
      'GEMINI_CLI_IDE_SERVER_STDIO_COMMAND=node',
      '-e',
      `GEMINI_CLI_IDE_SERVER_STDIO_ARGS=${JSON.stringify(relayArgs(plan, there))}`,
    ];
    const uid = process.getuid?.();
    if (options.runtime === 'docker' && uid !== undefined && uid !== 0) args.push('--user', `${uid}:${process.getgid!()}`);
    return { args, plan, cliRoot, workdir, discoveryDir };
  });
}

export const containerCommand: Command = {
  name: 'container',
  usage,
  run: (argv) =>
    runWithExitCodes('container', usage, async () => {
      const { values } = parseCommandArgs(CONTAINER_SPEC, argv);
      if (values['podman'] === values['docker']) throw new UsageError('give one of --podman or --docker');
      const at = values['at'] as string | undefined;
      if (at !== undefined && !path.posix.isAbsolute(at)) throw new UsageError(`--at ${at}: give an absolute path in the container`);
      try {
        const r = await containerArgs({ runtime: values['podman'] ? 'podman' : 'docker', cwd: process.cwd(), at });
        if (values['json'] === true) {
          printJson({
            args: r.args,
            projectAt: r.cliRoot,
            workdir: r.workdir,
            socket: r.plan.socketPath,
            served: r.plan.served,
            discoveryDir: r.discoveryDir,
          });
          return EXIT.OK;
        }
        const line = shellLine(r.args);
        if (line.needsEval)
          printError('container', 'a path here needs quoting: run it with eval "podman run --rm -it $(ide-companion container ...) IMAGE gemini"');
        if (!r.plan.served)
          printError('container', `no companion serves ${r.plan.hostRoot} yet: gemini inside connects once your editor runs there (/ide enable)`);
        print(line.text);
        return EXIT.OK;
      } catch (err) {
        if (!(err instanceof RemotePlanError)) throw err;
        printError('container', err.message);
        return EXIT.NO;
      }
    }),
};
