/** `ide-companion status`: what `/ide status` would show here, and which companion and why. */
import { buildStatus, formatFileList } from '@ide-companion/client';
import type { Command } from './types.js';
import { COMMON_USAGE, EXIT, common, makeClient, parse, print, printJson, runCommand } from '../client/output.js';

const usage = `Usage: ide-companion status [--json] [--cwd DIR] [--timeout MS]

Connects the way Gemini CLI would from this folder and prints what /ide status
shows (Connected to <IDE> with the open files, or Disconnected and why), plus
the companion chosen and the reason.

${COMMON_USAGE}
Exit status: 0 connected, 1 disconnected, 2 usage error.
`;

export const statusCommand: Command = {
  name: 'status',
  usage,
  run: (argv) =>
    runCommand('status', usage, async () => {
      const { values } = parse(argv, {}, false);
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
          if (report.geminiCli) text += `\n\nNote: gemini itself would not connect here. It logs "${report.geminiCli.reason}" and /ide status shows: ${report.geminiCli.status}`;
          print(text);
        }
        return report.status === 'connected' ? EXIT.OK : EXIT.NO;
      } finally {
        await client.stop();
      }
    }),
};
