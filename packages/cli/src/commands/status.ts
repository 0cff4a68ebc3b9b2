/** `ide-companion status`: what `/ide status` would show here, and which companion and why. */
import { buildStatus, formatFileList } from '@ide-companion/client/status';
import type { Command } from './types.js';
import { STATUS_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, common, print, printJson, runWithExitCodes } from '../client/output.js';
import { makeClient } from '../client/makeClient.js';
import { probeCodex } from '@ide-companion/client/codexProbe';

const usage = usageOf(STATUS_SPEC);

export const statusCommand: Command = {
  name: 'status',
  usage,
  run: (argv) =>
    runWithExitCodes('status', usage, async () => {
      const { values } = parseCommandArgs(STATUS_SPEC, argv);
      const c = common(values);
      const client = makeClient(c);
      try {
        if (await client.connect()) await client.waitForContext(Math.min(2_000, c.timeoutMs));
        const report = buildStatus(client);
        if (c.json) printJson(report);
        else {
          let text = report.headline;
          if (report.status === 'connected' && report.openFiles.length > 0) {
            text += `\n\nOpen files:\n${formatFileList(report.openFiles)}`;
          }
          if (report.companion) {
            const t = report.companion.target;
            text += `\n\nCompanion: ${t.kind === 'http' ? `${t.host}:${t.port}` : `stdio ${t.command}`}${report.companion.file ? ` (${report.companion.file})` : ''}`;
            text += `\nChosen because: ${report.companion.because}`;
            text += `\nDiffs: ${report.diffing ? 'enabled' : 'not offered by this companion'}`;
          } else if (report.reasons.length > 0) {
            text += `\n\nHow the companion was looked for:\n${report.reasons.map((r) => `  - ${r}`).join('\n')}`;
          }
          if (report.containerHint) text += `\n\nContainer: ${report.containerHint}`;
          if (report.geminiCli) {
            // What gemini would do decides, as in doctor: this client reached the companion where gemini does not.
            text =
              `${report.geminiCli.status}\n(gemini started here would NOT connect: ${report.geminiCli.reason}. ` +
              `ide-companion's own commands reach ${report.ideDisplayName ?? 'the IDE'}: ${report.headline.replace(/^🟢 /, '')}.)` +
              text.slice(report.headline.length);
          }
          // Codex CLI asks its own per-user socket, not this companion: what its /ide here would get, when there is one.
          const codex = await probeCodex(c.cwd, process.env, 1_500);
          if (codex.state !== 'absent') text += `\n\nCodex CLI's /ide here (${codex.socketPath}): ${codex.detail}`;
          print(text);
        }
        // The same answer as doctor's: 0 only when gemini started here would connect.
        return report.geminiWouldConnect ? EXIT.OK : EXIT.NO;
      } finally {
        await client.stop();
      }
    }),
};
