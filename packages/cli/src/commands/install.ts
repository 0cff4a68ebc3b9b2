/** `ide-companion install EDITOR` and `uninstall EDITOR`: run an editor end's installer, found in the registry of editor ends. */
import { detectEditor } from '@ide-companion/client/ideDetection';
import { findIdeProcess } from '@ide-companion/client/processTree';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { cleanText } from '@ide-companion/protocol';
import { type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { ensureBundles } from '../build/ensureBundles.js';
import { findInstaller, installers, type Installable } from '../editors.js';
import type { Command } from './types.js';
import { INSTALL_SPEC, UNINSTALL_SPEC, nearestName, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, common, print, printJson, runWithExitCodes } from '../client/output.js';

/** `install` or `uninstall`: parse, find the installer, run `act`, report. */
function installerCommand(name: 'install' | 'uninstall', act: (installer: Installable, options: InstallOptions) => Promise<InstallResult>): Command {
  const spec = name === 'install' ? INSTALL_SPEC : UNINSTALL_SPEC;
  const usage = usageOf(spec);
  return {
    name,
    usage,
    run: (argv) =>
      runWithExitCodes(name, usage, async () => {
        const { values, positionals } = parseCommandArgs(spec, argv);
        const c = common(values);
        if (positionals.length > 1) throw new UsageError('expected at most one EDITOR');
        const editor = positionals[0];
        if (!editor) {
          if (name === 'install') return listInstallers(c.json);
          throw new UsageError('which EDITOR? (ide-companion install lists them)');
        }
        const installer = await findInstaller(editor);
        if (!installer) {
          const all = await installers();
          const meant = nearestName(
            editor,
            all.flatMap((i) => [i.id, ...i.aliases]),
          );
          const id = all.find((i) => i.id === meant || i.aliases.includes(meant ?? ''))?.id;
          const known = all.map((i) => i.id).join(', ') || 'none yet';
          throw new UsageError(`no installer for '${editor}'${id ? `; did you mean 'ide-companion ${name} ${id}'?` : ''} (available: ${known})`);
        }
        const lines: string[] = [];
        // An installer's lines echo paths from the environment and its tools' output: cleaned, like every text we print.
        const log = (line: string) => (c.json ? lines.push(line) : process.stderr.write(`${cleanText(line)}\n`));
        const dryRun = values['dry-run'] === true;
        if (name === 'install' && !dryRun) ensureBundles(log);
        const result = await act(installer, { env: process.env, cwd: c.cwd, dryRun, log });
        if (c.json) printJson({ editor: installer.id, ...result, log: lines });
        else print(`${result.success ? '✔' : '✖'} ${result.message}`);
        return result.success ? EXIT.OK : EXIT.NO;
      }),
  };
}

export const installCommand = installerCommand('install', (installer, options) => installer.install(options));

export const uninstallCommand = installerCommand('uninstall', async (installer, options) => {
  if (!installer.uninstall) return { success: false, message: `${installer.displayName} has no uninstaller; remove it as its README says.` };
  const result = await installer.uninstall(options);
  if (!result.success || options.dryRun) return result;
  // The agents' folders a companion made in the home (docs/agents.md), once nothing is in them: a running companion's keep theirs.
  const { removeMadeAgentFolders } = await import('@ide-companion/server/faces/lockFile');
  const removed = removeMadeAgentFolders(options.env);
  for (const dir of removed) options.log?.(`removed ${dir}`);
  return removed.length === 0 ? result : { ...result, message: `${result.message} Removed the empty agent folders it had made: ${removed.join(', ')}.` };
});

async function listInstallers(json: boolean): Promise<number> {
  const ide = await findIdeProcess().catch(() => undefined);
  const here = detectEditor(process.env, ide?.command);
  const rows = await Promise.all(
    (await installers()).map(async (i) => ({
      id: i.id,
      displayName: i.displayName,
      listed: i.listed,
      detected: i.detect ? await i.detect({ env: process.env }).catch(() => false) : undefined,
      installed: i.isInstalled ? await i.isInstalled({ env: process.env }).catch(() => false) : undefined,
      installedVersion: (await i.installedVersion?.({ env: process.env }).catch(() => undefined)) ?? null,
    })),
  );
  if (json) {
    printJson({ installers: rows.map(({ listed: _listed, ...row }) => row), detectedEditor: here ?? null, version: COMPANION_VERSION });
    return EXIT.OK;
  }
  const lines = [here ? `This terminal seems to run in ${here.displayName} (${here.evidence}).` : 'No editor detected for this terminal.', ''];
  if (rows.length === 0) lines.push('No installers are registered yet.');
  else {
    lines.push('Installers:');
    for (const r of rows) {
      const installed = !r.installed
        ? 'not installed'
        : r.installedVersion && r.installedVersion !== COMPANION_VERSION
          ? `installed ${r.installedVersion}: run install again for ${COMPANION_VERSION}`
          : 'installed';
      const found = r.listed?.found ?? 'editor';
      const bits = [r.detected === undefined ? '' : r.detected ? `${found} found` : `${found} not found`, r.installed === undefined ? '' : installed].filter(
        Boolean,
      );
      lines.push(`  ${r.id.padEnd(10)} ${r.listed?.name ?? r.displayName}${bits.length ? ` (${bits.join(', ')})` : ''}`);
    }
    lines.push('', 'Run: ide-companion install EDITOR');
  }
  print(lines.join('\n'));
  return EXIT.OK;
}
