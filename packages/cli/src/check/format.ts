/** The human-readable report: one line per check, grouped, then a summary. */
import type { CheckReport, CheckStatus } from './report.js';

const LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', warn: 'WARN', skip: 'SKIP' };

export function formatReport(report: CheckReport): string {
  const { target } = report;
  const lines = [`ide-companion check: ${target.host}:${target.port ?? '?'}${target.discoveryFile ? ` (${target.discoveryFile})` : ''}`];
  let group = '';
  const width = Math.max(...report.results.map((r) => r.id.length));
  for (const r of report.results) {
    if (r.group !== group) {
      group = r.group;
      lines.push('', group);
    }
    lines.push(`  ${LABEL[r.status]}  ${r.id.padEnd(width)}  ${r.reason}`);
    if (r.status === 'fail') lines.push(`        ${''.padEnd(width)}  (${r.title}; source: ${r.source})`);
  }
  const s = report.summary;
  lines.push('', `${s.pass} passed, ${s.fail} failed, ${s.warn} warnings, ${s.skip} skipped`);
  if (!report.reachable) lines.push(`nothing answers on ${target.host}:${target.port}: is the editor (and its companion) running?`);
  return `${lines.join('\n')}\n`;
}
