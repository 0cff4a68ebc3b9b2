/** `ide-companion diff FILE [NEWFILE|-]`: a diff in the connected IDE, for scripts. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveToRealPath } from '@ide-companion/client/paths';
import { writePinned } from '@ide-companion/shared/pinnedFiles';
import { withOurInstallHint } from '@ide-companion/client/discovery';
import type { Command } from './types.js';
import { DIFF_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, common, printError, printJson, runWithExitCodes } from '../client/output.js';
import { makeClient } from '../client/makeClient.js';

const usage = usageOf(DIFF_SPEC);

const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function readText(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export const diffCommand: Command = {
  name: 'diff',
  usage,
  run: (argv) =>
    runWithExitCodes('diff', usage, async () => {
      const { values, positionals } = parseCommandArgs(DIFF_SPEC, argv);
      const c = common(values);
      if (positionals.length < 1 || positionals.length > 2) throw new UsageError('expected FILE and optionally NEWFILE or -');
      // The CLI sends the absolute real path; a new file's path is resolved through its parent.
      const filePath = resolveToRealPath(path.resolve(c.cwd, positionals[0]!), c.cwd);
      if (fs.existsSync(filePath) && fs.statSync(filePath).isDirectory()) throw new UsageError(`${filePath} is a directory`);
      const source = positionals[1] ?? (process.stdin.isTTY ? undefined : '-');
      const proposal =
        source === '-'
          ? await readStdin()
          : source !== undefined
            ? readText(path.resolve(c.cwd, source), 'NEWFILE')
            : fs.existsSync(filePath)
              ? readText(filePath, 'FILE')
              : '';

      const client = makeClient(c);
      let interrupted = false;
      // Ctrl-C, a kill and a closed terminal all withdraw the proposal: none may leave it open in the IDE.
      const onSignal = () => {
        interrupted = true;
        void client.resolveDiffFromCli(filePath, 'rejected');
      };
      try {
        if (!(await client.connect())) {
          printError('diff', withOurInstallHint(client.status.details ?? 'not connected to an IDE companion'));
          return EXIT.ERROR;
        }
        if (!client.isDiffingEnabled()) {
          printError('diff', `the companion in ${client.ideInfo?.displayName ?? 'the IDE'} does not offer openDiff and closeDiff`);
          return EXIT.ERROR;
        }
        for (const signal of INTERRUPTS) process.once(signal, onSignal);
        const outcome = await client.openDiff(filePath, proposal);
        if (outcome.status === 'rejected') {
          if (c.json) printJson({ status: 'rejected', filePath, interrupted });
          else process.stderr.write(interrupted ? 'diff closed (interrupted)\n' : 'diff rejected\n');
          return EXIT.NO;
        }
        let written = false;
        if (values['write']) {
          // By descriptor along the real path found at the start: a folder or the file swapped for a link since is
          // refused (said, exit 1), never written through (shared/pinnedFiles.ts).
          writePinned(filePath, outcome.content, { resolved: true });
          written = true;
        }
        if (c.json) printJson({ status: 'accepted', filePath, content: outcome.content, written });
        else process.stdout.write(outcome.content);
        return EXIT.OK;
      } catch (err) {
        printError('diff', (err as Error).message);
        return EXIT.ERROR;
      } finally {
        for (const signal of INTERRUPTS) process.off(signal, onSignal);
        await client.stop();
      }
    }),
};
