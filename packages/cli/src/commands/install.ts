/** `ide-companion install EDITOR`: runs an editor end's installer, found in the registry of editor ends. */
import { detectEditor, findIdeProcess } from '@ide-companion/client';
import { findInstaller, installers } from '../editors.js';
import type { Command } from './types.js';
import { commandSpec, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, common, print, printJson, runCommand } from '../client/output.js';

const usage = usageOf(commandSpec('install'));

export const installCommand: Command = {
  name: 'install',
  usage,
  run: (argv) =>
    runCommand('install', usage, async () => {
      const { values, positionals } = parseCommandArgs(commandSpec('install'), argv);
      const c = common(values);
      if (positionals.length > 1) throw new UsageError('expected at most one EDITOR');
      const name = positionals[0];
      if (!name) return listInstallers(c.json);
      const installer = await findInstaller(name);
      if (!installer) {
        const known = (await installers()).map((i) => i.id).join(', ') || 'none yet';
        throw new UsageError(`no installer for '${name}' (available: ${known})`);
      }
      const lines: string[] = [];
      const result = await installer.install({
        env: process.env,
        cwd: c.cwd,
        dryRun: values['dry-run'] === true,
        log: (line) => (c.json ? lines.push(line) : process.stderr.write(`${line}\n`)),
      });
      if (c.json) printJson({ editor: installer.id, ...result, log: lines });
      else print(`${result.success ? '✔' : '✖'} ${result.message}`);
      return result.success ? EXIT.OK : EXIT.NO;
    }),
};

async function listInstallers(json: boolean): Promise<number> {
  const ide = await findIdeProcess().catch(() => undefined);
  const here = detectEditor(process.env, ide?.command);
  const rows = await Promise.all(
    (await installers()).map(async (i) => ({
      id: i.id,
      displayName: i.displayName,
      detected: i.detect ? await i.detect({ env: process.env }).catch(() => false) : undefined,
      installed: i.isInstalled ? await i.isInstalled({ env: process.env }).catch(() => false) : undefined,
    })),
  );
  if (json) {
    printJson({ installers: rows, detectedEditor: here ?? null });
    return EXIT.OK;
  }
  const lines = [here ? `This terminal seems to run in ${here.displayName} (${here.evidence}).` : 'No editor detected for this terminal.', ''];
  if (rows.length === 0) lines.push('No installers are registered yet.');
  else {
    lines.push('Installers:');
    for (const r of rows) {
      const bits = [
        r.detected === undefined ? '' : r.detected ? 'editor found' : 'editor not found',
        r.installed === undefined ? '' : r.installed ? 'installed' : 'not installed',
      ].filter(Boolean);
      lines.push(`  ${r.id.padEnd(10)} ${r.displayName}${bits.length ? ` (${bits.join(', ')})` : ''}`);
    }
    lines.push('', 'Run: ide-companion install EDITOR');
  }
  print(lines.join('\n'));
  return EXIT.OK;
}
