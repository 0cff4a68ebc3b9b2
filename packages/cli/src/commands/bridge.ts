/**
 * `ide-companion bridge`: a companion host for editors whose plugin is a small
 * script (Vim, Emacs, others). The script starts this command as a job and
 * talks line-delimited JSON on its stdin/stdout (server/src/bridge/messages.ts);
 * the Companion holds all the protocol logic.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Companion, JsonLinesBridge, describeError } from '@ide-companion/server';
import { jsonLinesLogger } from '../logging.js';
import type { Command } from './types.js';

const usage = `Usage: ide-companion bridge --name NAME --display-name "Display Name" [--ide-pid PID] [--workspace DIR]...

Runs a companion whose editor end is a script speaking line-delimited JSON on
this process's stdin/stdout. Logs go to stderr. Ends when stdin closes.

Options:
  --name NAME            ideInfo.name, short and lowercase (e.g. vim)
  --display-name NAME    what /ide status shows (e.g. Vim)
  --ide-pid PID          the editor's PID (default: this command's parent)
  --workspace DIR        a workspace root (repeatable; default: the current folder)
`;

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      'display-name': { type: 'string' },
      'ide-pid': { type: 'string' },
      workspace: { type: 'string', multiple: true },
    },
    strict: true,
  });
  if (!values.name || !values['display-name']) {
    process.stderr.write(usage);
    return 2;
  }
  const idePid = values['ide-pid'] ? Number(values['ide-pid']) : process.ppid;
  if (!Number.isSafeInteger(idePid) || idePid <= 0) throw new Error(`--ide-pid must be a positive integer`);
  const roots = (values.workspace?.length ? values.workspace : [process.cwd()]).map((d) => fs.realpathSync(path.resolve(d)));
  const logger = jsonLinesLogger(process.stderr);

  const bridge = new JsonLinesBridge(process.stdin, process.stdout);
  const companion = new Companion({
    ideInfo: { name: values.name, displayName: values['display-name'] },
    idePid,
    workspaceRoots: roots,
    diffView: bridge.diffView,
    logger,
  });
  await companion.start();
  bridge.attach(companion);
  return new Promise<number>((resolve) => {
    const finish = () => {
      companion
        .stop()
        .catch((err: unknown) => logger.error('error while stopping', { error: describeError(err) }))
        .finally(() => {
          bridge.close();
          resolve(0);
        });
    };
    process.stdin.once('end', finish);
    process.stdin.once('close', finish);
  });
}

export const bridgeCommand: Command = { name: 'bridge', usage, run };
