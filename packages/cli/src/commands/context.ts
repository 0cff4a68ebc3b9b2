/** `ide-companion context [--watch]`: the IDE context the CLI would send the model. */
import { cleanText } from '@ide-companion/protocol';
import { toModelJson } from '@ide-companion/client/contextStore';
import { withOurInstallHint } from '@ide-companion/client/discovery';
import type { Command } from './types.js';
import { CONTEXT_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, common, printError, printJson, printJsonLine, runWithExitCodes } from '../client/output.js';
import { makeClient } from '../client/makeClient.js';

const usage = usageOf(CONTEXT_SPEC);

export const contextCommand: Command = {
  name: 'context',
  usage,
  run: (argv) =>
    runWithExitCodes('context', usage, async () => {
      const { values } = parseCommandArgs(CONTEXT_SPEC, argv);
      const c = common(values);
      if (values.watch) return watch(c);
      const client = makeClient(c);
      try {
        if (!(await client.connect())) {
          printError('context', withOurInstallHint(client.status.details ?? 'not connected'));
          return EXIT.NO;
        }
        const ctx = await client.waitForContext(c.timeoutMs);
        if (!ctx) {
          printError('context', `connected, but the companion sent no context within ${c.timeoutMs} ms`);
          return EXIT.NO;
        }
        printJson(toModelJson(ctx));
        return EXIT.OK;
      } finally {
        await client.stop();
      }
    }),
};

async function watch(c: ReturnType<typeof common>): Promise<number> {
  const client = makeClient(c, { reconnect: true, heartbeatMs: 5_000 });
  const show = (value: unknown) => (c.json ? printJsonLine(value) : printJson(value));
  client.context.subscribe((ctx) => {
    if (ctx) show(toModelJson(ctx));
  });
  let lastLine = '';
  const unsubscribe = client.onStatusChange((s) => {
    // Retries pass through "connecting" every few seconds: report only real changes.
    if (s.status === 'connecting') return;
    const key = `${s.status}\u0000${s.details ?? ''}`;
    if (key === lastLine) return;
    lastLine = key;
    const line = s.status === 'connected' ? `connected to ${client.ideInfo?.displayName ?? 'IDE'}` : `${s.status}${s.details ? `: ${s.details}` : ''}`;
    if (c.json) printJsonLine({ status: s.status, details: s.details });
    else process.stderr.write(`[${cleanText(line)}]\n`);
  });
  client.start();
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    // A closed terminal too: the session is ended (DELETE) rather than left to expire.
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, () => resolve(s));
  });
  // The user stopped watching: that is no disconnection of the IDE's (the client's own "stopped" is not reported).
  unsubscribe();
  await client.stop();
  if (c.json) printJsonLine({ status: 'stopped', signal });
  else process.stderr.write(`\n[stopped watching (${signal === 'SIGINT' ? 'Ctrl-C' : signal})]\n`);
  return EXIT.OK;
}
