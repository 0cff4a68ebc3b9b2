/**
 * `ide-companion bridge`: the companion host for editors whose plugin is a
 * script (Vim, Emacs, others). The script starts it as a job and speaks the
 * editor vocabulary as JSON lines on its stdin/stdout
 * (docs/editor-protocol.md); the Companion holds all the protocol logic.
 * Logs go to stderr. It ends when stdin closes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOST_GAVE_UP_EXIT_CODE, type Hello, type IdeInfo } from '@ide-companion/protocol';
import { Companion } from '@ide-companion/server/companion';
import { parseAgents } from '@ide-companion/shared/agentPaths';
import { UsageError, parseCommandArgs, usageOf } from '@ide-companion/command/commandSpec';
import { describeError, jsonLinesLogger } from '@ide-companion/server/logger';
import { trustFromFolders } from '@ide-companion/server/workspaceTrust';
import { hostRestart, hostStoppedCleanly } from '@ide-companion/server/hostRestarts';
import { type EditorCommand } from '@ide-companion/command/editorEnd';
import { JsonLinesBridge } from './jsonLinesBridge.js';
import { bridgeSpec } from './bridgeSpec.js';

interface Flags {
  name?: string;
  displayName?: string;
  idePid?: number;
  workspaces: string[];
}

function parseFlags(argv: string[]): Flags {
  const { values } = parseCommandArgs(bridgeSpec, argv) as { values: Record<string, string | undefined> & { workspace?: string[] } };
  if (values.name !== undefined && values['display-name'] === undefined) throw new UsageError('--name was given without --display-name');
  if (values['display-name'] !== undefined && values.name === undefined) throw new UsageError('--display-name was given without --name');
  let idePid: number | undefined;
  if (values['ide-pid'] !== undefined) {
    idePid = Number(values['ide-pid']);
    if (!Number.isSafeInteger(idePid) || idePid <= 0) throw new UsageError(`--ide-pid must be a positive integer, got ${values['ide-pid']}`);
  }
  return { name: values.name, displayName: values['display-name'], idePid, workspaces: values.workspace ?? [] };
}

function ideInfoFrom(hello: Hello, flags: Flags): IdeInfo {
  if (hello.ide) return hello.ide;
  if (flags.name && flags.displayName) return { name: flags.name, displayName: flags.displayName };
  throw new UsageError('no editor name: pass --name and --display-name, or "ide": {"name", "displayName"} in hello');
}

/** Real paths of `dirs`; one that does not exist is a usage error for `--workspace`, and left to the companion (dropped, said so) for the editor's roots. */
function realRoots(dirs: readonly string[], fromEditor: boolean): string[] {
  return dirs.map((d) => {
    try {
      return fs.realpathSync(path.resolve(d));
    } catch {
      if (fromEditor) return path.resolve(d);
      throw new UsageError(`workspace ${d} does not exist`);
    }
  });
}

async function run(argv: string[]): Promise<number> {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (err) {
    process.stderr.write(`ide-companion bridge: ${describeError(err)}\n\n${usageOf(bridgeSpec)}`);
    return 2;
  }
  const logger = jsonLinesLogger(process.stderr);
  const bridge = new JsonLinesBridge(process.stdin, process.stdout, undefined, logger);
  const stdinEnded = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });

  const hello = await Promise.race([bridge.hello, stdinEnded.then(() => undefined)]);
  if (!hello) {
    bridge.close();
    return 0;
  }
  // Started again after a death: counted, backed off, said; the 5th in 3 minutes gives up (server/hostRestarts.ts).
  const restart = await hostRestart(hello.ide?.name ?? flags.name ?? '', { logger });
  if (restart.said) bridge.say(restart.said);
  if (restart.gaveUp) {
    bridge.close();
    return HOST_GAVE_UP_EXIT_CODE;
  }
  let companion: Companion;
  try {
    const editor = bridge.editorActions(hello.capabilities ?? []);
    companion = new Companion({
      ideInfo: ideInfoFrom(hello, flags),
      idePid: hello.pid ?? flags.idePid ?? process.ppid,
      workspaceRoots: hello.roots ? realRoots(hello.roots, true) : realRoots(flags.workspaces.length > 0 ? flags.workspaces : [process.cwd()], false),
      trusted: hello.trusted ?? (hello.trustedFolders && hello.roots ? trustFromFolders(hello.trustedFolders, hello.roots) : undefined),
      editor,
      logger,
      // A bridge run by a script is its own host: killed with -9, its reaper removes its files.
      reapOnKill: true,
      // The editor's choice of agents (Vim's g:ide_companion_agents, Emacs's ide-companion-agents).
      ...(hello.agents && { agents: parseAgents(hello.agents.join(',')) }),
      // Amp's editFile through review or the editor's buffer (Vim's g:ide_companion_amp_edit_file, Emacs's ide-companion-amp-edit-file).
      ...(hello.ampEditFile && { faceSettings: { amp: { editFile: hello.ampEditFile } } }),
    });
    await companion.start();
  } catch (err) {
    bridge.error(`the companion could not start: ${describeError(err)}`);
    logger.error('the companion could not start', { error: describeError(err) });
    bridge.close();
    return err instanceof UsageError ? 2 : 1;
  }
  bridge.attach(companion);
  // Refused workspace folders are the user's to hear of, after ready: an `error` line before it would read as a failed start.
  if (companion.rootsRefused) bridge.error(companion.rootsRefused);
  await stdinEnded;
  await companion.stop().catch((err: unknown) => logger.error('error while stopping', { error: describeError(err) }));
  bridge.close();
  hostStoppedCleanly();
  return 0;
}

export const bridgeCommand: EditorCommand = { spec: bridgeSpec, run };
