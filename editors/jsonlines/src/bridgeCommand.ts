/**
 * `ide-companion bridge`: the companion host for editors whose plugin is a
 * script (Vim, Emacs, others). The script starts it as a job and speaks the
 * editor vocabulary as JSON lines on its stdin/stdout
 * (docs/editor-protocol.md); the host core (server/scriptHost.ts) and the
 * Companion hold all the logic. Logs go to stderr. It ends when stdin closes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Hello, IdeInfo } from '@ide-companion/protocol';
import { UsageError, parseCommandArgs, usageOf } from '@ide-companion/command/commandSpec';
import { describeError, jsonLinesLogger } from '@ide-companion/server/logger';
import type { HelloDefaults } from '@ide-companion/server/scriptHost';
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

/** What hello leaves out, from the flags: the editor's name (else a usage error), its PID (else this command's parent), the folders (else the current one). */
function defaultsFrom(flags: Flags): (hello: Hello) => HelloDefaults {
  return (hello) => ({
    ideInfo: hello.ide ?? ideInfoFrom(flags),
    idePid: flags.idePid ?? process.ppid,
    roots: hello.roots ? [] : realRoots(flags.workspaces.length > 0 ? flags.workspaces : [process.cwd()]),
  });
}

function ideInfoFrom(flags: Flags): IdeInfo {
  if (flags.name && flags.displayName) return { name: flags.name, displayName: flags.displayName };
  throw new UsageError('no editor name: pass --name and --display-name, or "ide": {"name", "displayName"} in hello');
}

/** Real paths of `--workspace` folders; one that does not exist is a usage error. */
function realRoots(dirs: readonly string[]): string[] {
  return dirs.map((d) => {
    try {
      return fs.realpathSync(path.resolve(d));
    } catch {
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
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const bridge = new JsonLinesBridge(process.stdin, process.stdout, {
    logger: jsonLinesLogger(process.stderr),
    exit,
    defaults: defaultsFrom(flags),
    failureCode: (err) => (err instanceof UsageError ? 2 : 1),
  });
  const stdinEnded = () => void bridge.host.stop('stdin closed');
  process.stdin.once('end', stdinEnded);
  process.stdin.once('close', stdinEnded);
  const code = await exited;
  bridge.close();
  return code;
}

export const bridgeCommand: EditorCommand = { spec: bridgeSpec, run };
