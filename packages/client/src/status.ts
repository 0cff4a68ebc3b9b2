/**
 * What `/ide status` shows, computed from a CompanionClient, plus the
 * companion chosen and why (the real CLI keeps that to itself).
 */
import * as path from 'node:path';
import type { File, IdeContext } from '@ide-companion/protocol';
import type { CompanionClient } from './companionClient.js';
import { withOurInstallHint, type ConnectionTarget } from './discovery.js';
import { LOOPBACK_HOST, containerHintFor } from '@ide-companion/protocol';

/** A target without its token: safe to print. */
export type PublicTarget =
  | { kind: 'http'; source: string; host: string; port: number; file?: string; hasToken: boolean }
  | { kind: 'stdio'; source: string; command: string; args: string[]; file?: string };

export function publicTarget(t: ConnectionTarget): PublicTarget {
  return t.kind === 'http'
    ? { kind: 'http', source: t.source, host: t.host, port: t.port, file: t.file, hasToken: !!t.authToken }
    : { kind: 'stdio', source: t.source, command: t.command, args: t.args, file: t.file };
}

export interface StatusReport {
  status: 'connected' | 'connecting' | 'disconnected';
  /** `🟢 Connected to <displayName>` or `🔴 Disconnected: <details>`, as the CLI prints it. */
  headline: string;
  ideDisplayName?: string;
  details?: string;
  companion?: {
    target: PublicTarget;
    file?: string;
    because: string;
  };
  tools: string[];
  diffing: boolean;
  openFiles: File[];
  context?: IdeContext;
  /** Discovery's decisions, in order. */
  reasons: string[];
  /**
   * Set when Gemini CLI itself would refuse before dialling (its IDE detection
   * gate: no ideInfo and not a VS Code/Sublime/Zed/Xcode/JetBrains terminal),
   * though this client connects anyway: what its `/ide status` then shows, and
   * the reason it logs at start-up.
   */
  geminiCli?: { status: string; reason: string };
  /** Whether gemini started here would connect (doctor's verdict): connected, and neither note above applies. */
  geminiWouldConnect: boolean;
  /** Set when gemini here would dial host.docker.internal: what to set (containerHint). */
  containerHint?: string;
}

/**
 * The real CLI's start-up error when its IDE detection finds nothing. Its
 * `/ide status` keeps the earlier "disabled" text: it only replaces the details
 * of a disconnected state after passing through "connecting".
 */
export const CLI_DISABLED_STATUS = '🔴 Disconnected: IDE integration is currently disabled. To enable it, run /ide enable.';
export const UNSUPPORTED_ENVIRONMENT_MESSAGE =
  'IDE integration is not supported in your current environment. To use this feature, run Gemini CLI in one of these supported IDEs: Antigravity, VS Code, or VS Code forks.';

/** The CLI's open-file list (`  - name (active)`, parent dir added for duplicate names). */
export function formatFileList(openFiles: readonly File[]): string {
  const counts = new Map<string, number>();
  for (const f of openFiles) counts.set(path.basename(f.path), (counts.get(path.basename(f.path)) ?? 0) + 1);
  return openFiles
    .map((f) => {
      const base = path.basename(f.path);
      const name = (counts.get(base) ?? 0) > 1 ? `${base} (/${path.basename(path.dirname(f.path))})` : base;
      return `  - ${name}${f.isActive ? ' (active)' : ''}`;
    })
    .join('\n');
}

export function buildStatus(client: CompanionClient): StatusReport {
  // What /ide status shows, except the CLI's `/ide install` hint: it only installs VS Code's extension.
  const state = { ...client.status, details: client.status.details === undefined ? undefined : withOurInstallHint(client.status.details) };
  const discovery = client.discovery;
  const displayName = client.ideInfo?.displayName ?? 'IDE';
  const headline =
    state.status === 'connected'
      ? `🟢 Connected to ${displayName}`
      : state.status === 'connecting'
        ? '🟡 Connecting...'
        : `🔴 Disconnected${state.details ? `: ${state.details}` : ''}`;
  const target = client.target;
  const context = client.context.get();
  const report: StatusReport = {
    status: state.status,
    headline,
    ideDisplayName: client.ideInfo?.displayName,
    details: state.details,
    tools: client.tools,
    diffing: client.isDiffingEnabled(),
    openFiles: context?.workspaceState?.openFiles ?? [],
    context,
    reasons: discovery?.reasons ?? [],
    geminiWouldConnect: false,
  };
  const hint = discovery ? containerHintFor(discovery.host) : undefined;
  if (hint) report.containerHint = hint;
  if (discovery && !discovery.ide) report.geminiCli = { status: CLI_DISABLED_STATUS, reason: UNSUPPORTED_ENVIRONMENT_MESSAGE };
  else if (discovery && state.status === 'connected' && target?.kind === 'http' && target.host === LOOPBACK_HOST && discovery.host.host !== LOOPBACK_HOST) {
    // Reached on loopback only because this client tries it first in a container; gemini dials the container's host, where nothing answers.
    report.geminiCli = {
      status: `🔴 Disconnected: Failed to connect to IDE companion extension in ${displayName}.`,
      reason: `it dials ${discovery.host.host}, not ${LOOPBACK_HOST}: ${discovery.host.reason}`,
    };
  }
  report.geminiWouldConnect = state.status === 'connected' && report.geminiCli === undefined;
  if (target) {
    report.companion = {
      target: publicTarget(target),
      file: target.file,
      because: target.source === 'file' ? (discovery?.chosenBecause ?? '') : `from ${target.source}`,
    };
  }
  return report;
}
