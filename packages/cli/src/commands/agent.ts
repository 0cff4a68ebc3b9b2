/** `ide-companion agent [--] COMMAND ARGS...`: an ACP agent in this terminal, the editor as its IDE (docs/acp.md). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './types.js';
import { AGENT_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, print, printError, runWithExitCodes } from '../client/output.js';

const usage = usageOf(AGENT_SPEC);

/** Our options come first; `--`, or the first word that is not one of them, starts the agent's command. */
export function splitAgentArgv(argv: readonly string[]): { own: string[]; command: string[] } {
  const own: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return { own, command: argv.slice(i + 1) };
    if (!arg.startsWith('-')) return { own, command: argv.slice(i) };
    own.push(arg);
    const name = arg.replace(/^--?/, '');
    if (!arg.includes('=') && AGENT_SPEC.options[name]?.type === 'string' && i + 1 < argv.length) own.push(argv[++i]!);
  }
  return { own, command: [] };
}

export const agentCommand: Command = {
  name: 'agent',
  usage,
  run: (argv) =>
    runWithExitCodes('agent', usage, async () => {
      const { own, command } = splitAgentArgv(argv);
      const { values } = parseCommandArgs(AGENT_SPEC, own);
      if (values['list']) {
        if (command.length > 0) throw new UsageError('--list takes no command');
        return listAgents();
      }
      if (command.length === 0) throw new UsageError('give the agent command, e.g. ide-companion agent -- gemini --acp (--list names the ones on PATH)');
      const raw = values['timeout'];
      const timeoutMs = raw === undefined ? 60_000 : Number(raw);
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
        throw new UsageError(`--timeout must be a positive number of milliseconds, got ${JSON.stringify(raw)}`);
      const cwd = path.resolve(typeof values['cwd'] === 'string' ? values['cwd'] : process.cwd());
      if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--cwd ${cwd} is not a folder`);
      const { runAgentRepl } = await import('../agent/repl.js');
      return runAgentRepl({ command: command[0]!, args: command.slice(1), cwd, timeoutMs, ide: values['no-ide'] !== true });
    }),
};

async function listAgents(): Promise<number> {
  const { listKnownAgents } = await import('@ide-companion/client/acp/knownAgents');
  const agents = listKnownAgents();
  const rows = agents.map((a) => [a.found ? 'found' : '-', [a.command, ...a.args].join(' '), a.name, a.found ?? a.source]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) print(r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  '));
  const found = agents.filter((a) => a.found).length;
  if (found === 0) {
    printError('agent', 'no known ACP agent is on PATH; any other runs with: ide-companion agent -- COMMAND ARGS');
    return EXIT.NO;
  }
  return EXIT.OK;
}
