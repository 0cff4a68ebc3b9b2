/** Results of one `check` run: one entry per catalogue check, in catalogue order. */
import { CHECKS, checkDefinition, type CheckGroup, type CheckId } from './catalogue.js';

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

export interface CheckResult {
  id: CheckId;
  group: CheckGroup;
  title: string;
  source: string;
  status: CheckStatus;
  /** One line: what was seen. */
  reason: string;
}

export interface CheckReport {
  target: { host: string; port?: number; discoveryFile?: string; tokenFrom?: 'option' | 'file' | 'discovery' };
  /** False when nothing answered on the port: the command exits 2. */
  reachable: boolean;
  results: CheckResult[];
  summary: Record<CheckStatus, number>;
}

/** Collects results; a check recorded twice keeps the worse verdict (fail > warn > pass > skip). */
export class Recorder {
  private readonly results = new Map<CheckId, CheckResult>();

  pass(id: CheckId, reason: string): void {
    this.record(id, 'pass', reason);
  }
  fail(id: CheckId, reason: string): void {
    this.record(id, 'fail', reason);
  }
  warn(id: CheckId, reason: string): void {
    this.record(id, 'warn', reason);
  }
  skip(id: CheckId, reason: string): void {
    this.record(id, 'skip', reason);
  }

  status(id: CheckId): CheckStatus | undefined {
    return this.results.get(id)?.status;
  }

  /** Marks every check of `groups` not yet recorded as skipped. */
  skipRemaining(reason: string, groups?: readonly CheckGroup[]): void {
    for (const check of CHECKS) {
      if ((!groups || groups.includes(check.group)) && !this.results.has(check.id)) this.skip(check.id, reason);
    }
  }

  finish(target: CheckReport['target'], reachable: boolean): CheckReport {
    this.skipRemaining('not run');
    const results = CHECKS.map((c) => this.results.get(c.id)!);
    const summary: Record<CheckStatus, number> = { pass: 0, fail: 0, warn: 0, skip: 0 };
    for (const r of results) summary[r.status]++;
    return { target, reachable, results, summary };
  }

  private record(id: CheckId, status: CheckStatus, reason: string): void {
    const previous = this.results.get(id);
    if (previous && SEVERITY[previous.status] >= SEVERITY[status]) return;
    const def = checkDefinition(id);
    this.results.set(id, { id, group: def.group, title: def.title, source: def.source, status, reason: oneLine(reason) });
  }
}

const SEVERITY: Record<CheckStatus, number> = { skip: 0, pass: 1, warn: 2, fail: 3 };

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

/** 0 when nothing failed, 1 when something failed, 2 when the companion could not be reached. */
export function exitCodeOf(report: CheckReport): number {
  if (!report.reachable) return 2;
  return report.summary.fail > 0 ? 1 : 0;
}
