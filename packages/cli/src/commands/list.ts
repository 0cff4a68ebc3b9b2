/** `ide-companion list`: every companion on this machine. */
import { discoverCompanion } from '@ide-companion/client/discovery';
import { listCompanions, type CompanionListing } from '@ide-companion/client/companions';
import { servedAgentNames } from '@ide-companion/shared/agentPaths';
import { probeCodex } from '@ide-companion/client/codexProbe';
import { notServedLines } from './notServed.js';
import type { Command } from './types.js';
import { LIST_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, common, print, printJson, runWithExitCodes } from '../client/output.js';

const usage = usageOf(LIST_SPEC);

function liveness(l: CompanionListing): 'alive' | 'stale' | 'not listening' | 'unreadable' {
  if (l.problem) return 'unreadable';
  if (!l.pidAlive) return 'stale';
  return l.portOpen === false ? 'not listening' : 'alive';
}

export const listCommand: Command = {
  name: 'list',
  usage,
  run: (argv) =>
    runWithExitCodes('list', usage, async () => {
      const { values } = parseCommandArgs(LIST_SPEC, argv);
      const c = common(values);
      const [listings, discovery] = await Promise.all([listCompanions(), discoverCompanion({ cwd: c.cwd, wellKnownPorts: false })]);
      const chosen = discovery.chosen?.path;
      const rows = listings.map((l) => ({ ...l, state: liveness(l), chosenHere: l.file === chosen }));
      const found = rows.length > 0 ? EXIT.OK : EXIT.NO;
      if (c.json) {
        printJson(rows);
        return found;
      }
      if (rows.length === 0) {
        print(`No companions: no discovery files in ${discovery.dir}.`);
        return found;
      }
      const table = [
        ['', 'IDE', 'PID', 'PORT', 'STATE', 'AGENTS', 'WORKSPACE'],
        ...rows.map((r) => [
          r.chosenHere ? '*' : '',
          r.ide?.displayName ?? '?',
          String(r.pid),
          r.port === undefined ? '?' : String(r.port),
          r.state + (r.ownedByUser ? '' : ` (uid ${r.ownerUid})`),
          servedAgentNames(r.agents).join(', '),
          r.roots.join(', ') || (r.workspacePath === '' ? '(no folder open)' : '?'),
        ]),
      ];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
      print(
        table
          .map((row) =>
            row
              .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
              .join('  ')
              .trimEnd(),
          )
          .join('\n'),
      );
      // Why each live companion leaves an agent out (its discovery file says; an older companion's says nothing).
      for (const r of rows) {
        if (r.state !== 'alive') continue;
        const why = notServedLines(r.notServed).map((line) => `  ${line}`);
        if (why.length > 0) print(`Not served by PID ${r.pid} (${r.ide?.displayName ?? '?'}):\n${why.join('\n')}`);
      }
      // Codex CLI has one socket per user, routed to every companion that serves it: said once, for this folder.
      const codex = await probeCodex(c.cwd, process.env, 1_500);
      if (codex.state !== 'absent') print(`Codex CLI (${codex.socketPath}): ${codex.detail}`);
      return EXIT.OK;
    }),
};
