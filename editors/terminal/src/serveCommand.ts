/**
 * `ide-companion serve`: a companion for the current folder, for editors with
 * no plugin (Helix, Kakoune, nano, micro...). Context comes from files saved
 * in the workspace; diffs are reviewed in this terminal.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanStrings, type EditorEvent } from '@ide-companion/protocol';
import { Companion } from '@ide-companion/server/companion';
import { applyEditorEvent } from '@ide-companion/server/editorEvents';
import { describeError, humanLogger, jsonLinesLogger } from '@ide-companion/server/logger';
import { parseCommandArgs } from '@ide-companion/command/commandSpec';
import { type EditorActions } from '@ide-companion/server/editorActions';
import { type EditorCommand } from '@ide-companion/command/editorEnd';
import { type SessionInfo } from '@ide-companion/server/sessions';
import { AGENT_DISPLAY_NAMES, parseAgents, servedAgentNames, type AgentName } from '@ide-companion/shared/agentPaths';
import { draftsLeftBehind } from '@ide-companion/server/keptProposals';
import { FACES } from '@ide-companion/server/faces/registry';
import { paint } from './renderDiff.js';
import { SERVE_IDE_INFO, serveSpec } from './serveSpec.js';
import { StatusLine, statusLineLogger } from './statusLine.js';
import { TerminalReview } from './terminalReview.js';
import { WorkspaceWatcher } from './workspaceWatcher.js';
import { rootRefusal } from '@ide-companion/server/workspaceRoots';

function resolveRoots(dirs: string[]): string[] {
  return dirs.map((dir) => {
    let real: string;
    try {
      real = fs.realpathSync(path.resolve(dir));
    } catch {
      throw new Error(`workspace ${dir} does not exist`);
    }
    if (!fs.statSync(real).isDirectory()) throw new Error(`workspace ${dir} is not a directory`);
    // `/` or the home folder as a whole would give agents every file: serve refuses to start rather than serve nothing.
    const refused = rootRefusal(real);
    if (refused) throw new Error(`workspace ${dir} refused: ${refused}`);
    return real;
  });
}

function describeSessions(sessions: SessionInfo[]): string {
  if (sessions.length === 0) return 'no CLI connected';
  const agents = [...new Set(sessions.map((s) => AGENT_DISPLAY_NAMES[s.agent]))].join(', ');
  return `${sessions.length} CLI session${sessions.length === 1 ? '' : 's'} connected (${agents})`;
}

/** How the other agents find serve from another terminal: each served face's own hint (faces/registry.ts). */
function agentHints(agents: readonly AgentName[]): string {
  const hints = FACES.filter((face) => agents.includes(face.agent)).map((face) => face.connectHint);
  return hints.length > 0 ? `(${hints.join('; ')}.)\n` : '';
}

/** The agents awaited (their folder not there yet): served once it appears. */
function waitingLine(notServed: Companion['agentsNotServed']): string {
  const waiting = Object.entries(notServed).flatMap(([agent, why]) =>
    why?.why === 'folder missing' ? [`${servedAgentNames([agent as AgentName]).join(', ')} (no ${why.folder})`] : [],
  );
  return waiting.length > 0 ? `Not served yet: ${waiting.join(', ')}; each is served as soon as its folder appears (its first run makes it).\n` : '';
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(serveSpec, argv);
  const json = values['json'] === true;
  const human = json ? process.stderr : process.stdout;
  const color = !values['no-color'] && !process.env['NO_COLOR'] && (human as NodeJS.WriteStream).isTTY === true;
  const workspaces = (values['workspace'] as string[] | undefined) ?? [];
  const roots = resolveRoots(workspaces.length > 0 ? workspaces : [process.cwd()]);
  const event = (e: Record<string, unknown>) => {
    // An agent's file path in it: no control character reaches a terminal reading these lines.
    if (json) process.stdout.write(`${JSON.stringify(cleanStrings({ time: new Date().toISOString(), ...e }))}\n`);
  };
  const screen = new StatusLine(human, color);
  // In a terminal, warnings (refused requests) go to the status line, rate-limited: a line each would scroll the review away.
  const logger = json ? jsonLinesLogger(process.stdout) : screen.tty ? statusLineLogger(screen) : humanLogger(process.stderr);

  let companion: Companion | undefined;
  const report = (e: EditorEvent) => applyEditorEvent(companion!, e);
  const review = new TerminalReview({
    input: process.stdin,
    screen,
    color,
    editor: process.env['VISUAL'] || process.env['EDITOR'] || 'vi',
    outcomes: { accept: (diffId, content) => report({ type: 'diffAccepted', diffId, content }), reject: (diffId) => report({ type: 'diffRejected', diffId }) },
    onEvent: event,
  });
  // A terminal has no tabs: its open editors are the files being worked on (the context's files).
  const editor: EditorActions = {
    showDiff: (diff) => review.showDiff(diff),
    diffText: (diff) => review.diffText(diff),
    closeDiff: (diff, reason) => review.closeDiff(diff, reason),
    getOpenEditors: () => ({
      editors: (companion!.context.snapshot().workspaceState?.openFiles ?? []).map((f) => ({ path: f.path, isActive: f.isActive === true })),
    }),
  };
  const watcher = new WorkspaceWatcher(roots, report, (filePath) => event({ event: 'saved', filePath }));
  // git and the watcher start once the discovery file is written (they took
  // 30 ms to seconds before it, and compete for the CPU); a CLI that connects
  // meanwhile gets the seeded context first.
  let listening!: () => void;
  const seeded = new Promise<void>((resolve) => (listening = resolve)).then(() => watcher.seed());
  const agents = typeof values['agents'] === 'string' ? parseAgents(values['agents']) : undefined;
  // serve is its own host: killed with -9, its reaper removes its files (nothing else would until the next start).
  companion = new Companion({ ideInfo: SERVE_IDE_INFO, workspaceRoots: roots, editor, logger, contextSeed: seeded, agents, reapOnKill: true });

  const starting = companion.start().finally(listening);
  const started = await Promise.allSettled([starting, seeded.then(() => watcher.watch())]);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await watcher.stop();
    await companion.stop();
    review.dispose();
    throw failed.reason;
  }

  let lastStatus = '';
  companion.onDidChangeSessions((sessions) => {
    const status = describeSessions(sessions);
    if (status === lastStatus) return;
    lastStatus = status;
    screen.setStatus(`● ${status}`);
    event({ event: 'sessions', count: sessions.length, listening: sessions.filter((s) => s.streamOpen).length });
  });

  event({ event: 'listening', port: companion.port, workspace: roots, discoveryFile: companion.discoveryFilePath, pid: process.pid });
  // An agent first run after serve started (its folder appears then) is served from then on: said once.
  companion.onDidChangeAgents((served) => {
    screen.print(`Now serving ${servedAgentNames(served).join(', ')}: a folder appeared.\n${agentHints(served)}`);
    event({ event: 'agents', served });
  });
  const connect = roots.map((r) => `  cd ${r} && gemini`).join('\n');
  screen.print(
    `${paint('ide-companion serve', 'bold', color)}: companion for ${servedAgentNames(companion.agents).join(', ')} on 127.0.0.1:${companion.port}\n` +
      `Connect from another terminal:\n${connect}\n` +
      agentHints(companion.agents) +
      `(/ide status there shows "Connected to ${SERVE_IDE_INFO.displayName}".) Proposed edits appear here. Ctrl+C stops.\n` +
      waitingLine(companion.agentsNotServed),
  );
  // The project's stable address (docs/remote.md), what the recipes mount and forward: it outlives this serve, unlike its own socket.
  const stable = [...new Set(roots.flatMap((r) => companion!.workspaceSocketPaths[r] ?? []))];
  const sockets = stable.length > 0 ? stable : companion.socketPath ? [companion.socketPath] : [];
  if (sockets.length > 0)
    screen.print(
      `Also on ${sockets.join(', ')}: gemini in a container, --sandbox or over SSH connects through it (ide-companion container, sandbox or ssh HOST).\n`,
    );
  const left = draftsLeftBehind();
  if (left.length > 0) {
    screen.print(`${paint('Kept:', 'bold', color)} your edits to proposals a serve had open when it was killed:\n${left.map((f) => `  ${f}\n`).join('')}`);
    event({ event: 'draftsKept', files: left });
  }
  // What a killed serve left accepted and unwritten: kept again, as an unwritten accept is.
  void companion.diffs.keepAcceptedLeftBehind();
  const hint = companion.containerHint;
  if (hint) screen.print(`${paint('Container:', 'bold', color)} ${hint}\n`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      review.dispose();
      screen.print(`\nStopping (${signal})...\n`);
      Promise.all([watcher.stop(), companion!.stop()])
        .catch((err: unknown) => logger.error('error while stopping', { error: describeError(err) }))
        .finally(() => {
          review.dispose();
          screen.end();
          event({ event: 'stopped' });
          for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, stop);
          resolve(signal === 'SIGINT' ? 130 : 0);
          // stdin may keep the loop alive.
          setImmediate(() => process.exit(signal === 'SIGINT' ? 130 : 0));
        });
    };
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, stop);
  });
}

export { SERVE_IDE_INFO, serveSpec };
export const serveCommand: EditorCommand = { spec: serveSpec, run };
