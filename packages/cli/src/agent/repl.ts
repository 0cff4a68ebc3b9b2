/**
 * The loop of `ide-companion agent`: connect to the editor's companion (as
 * Gemini CLI would from this folder), start the agent, then read prompt lines.
 * A line answers an open question first; `/` lines are ours; anything else is
 * a turn. Ctrl-C cancels the question and the turn; a second one at an idle
 * prompt quits. The agent's exit ends the session with its reason in words.
 */
import { createInterface } from 'node:readline';
import type { CompanionClient } from '@ide-companion/client/companionClient';
import { AgentSession, describeExit } from '@ide-companion/client/acp/agentSession';
import { EXIT } from '../client/output.js';
import { makeClient } from '../client/makeClient.js';
import { TerminalUi } from './terminalUi.js';

export interface ReplOptions {
  command: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  /** Connect to an editor (false: --no-ide). */
  ide: boolean;
}

const HELP = '/ide status: the editor connection; /cancel (Ctrl-C): cancel the running turn; /quit (Ctrl-C twice): leave';
const MODE_HELP = "/mode: the agent's modes; /mode ID: switch to one";

/** /help names /mode only when the agent offers modes. */
function help(session: AgentSession): string {
  return session.modes ? `${HELP}; ${MODE_HELP}` : HELP;
}

export async function runAgentRepl(o: ReplOptions): Promise<number> {
  // Made once the agent is up: what is typed meanwhile waits in stdin for the first prompt.
  const ui = new TerminalUi(process.stdout);
  const companion = o.ide ? await connectEditor(o, ui) : undefined;
  ui.notice(`starting ${[o.command, ...o.args].join(' ')}`);
  let session: AgentSession;
  try {
    session = await AgentSession.start({ command: o.command, args: o.args, cwd: o.cwd, ui, companion, startTimeoutMs: o.timeoutMs });
  } catch (err) {
    ui.notice((err as Error).message);
    await companion?.stop();
    return EXIT.ERROR;
  }
  ui.notice(`agent: ${session.agentName}. ${help(session)}`);
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal, historySize: 200, prompt: '> ' });
  ui.attach(rl);
  rl.prompt();

  return new Promise<number>((resolveExit) => {
    let quitting = false;
    let armed = false;
    let inputEnded = false;
    const signals = ['SIGTERM', 'SIGHUP'] as const;
    const quit = async (code: number) => {
      if (quitting) return;
      quitting = true;
      process.off('SIGINT', interrupt);
      for (const s of signals) process.off(s, onSignal);
      ui.cancelQuestion();
      session.cancel();
      rl.close();
      ui.close();
      // A pipe's stdin would keep the process up until the other end closes it (readline paused a tty's).
      if (!terminal) process.stdin.destroy();
      await session.close();
      await companion?.stop();
      resolveExit(code);
    };
    const onSignal = () => void quit(EXIT.OK);
    const idlePrompt = () => {
      if (quitting) return;
      if (inputEnded) void quit(EXIT.OK);
      else rl.prompt();
    };
    const cancel = () => {
      const question = ui.cancelQuestion();
      if (session.cancel()) ui.notice('cancelling the turn');
      else if (!question) ui.notice('no turn is running');
    };
    const interrupt = () => {
      if (ui.asking || session.running) return cancel();
      if (armed) return void quit(EXIT.OK);
      armed = true;
      ui.notice('Ctrl-C again to quit');
      rl.prompt();
    };
    const runTurn = async (text: string) => {
      try {
        const stop = await session.prompt(text);
        ui.endTurn();
        if (stop !== 'end_turn') ui.notice(`turn ended: ${stop}`);
      } catch (err) {
        ui.endTurn();
        // An exit is told once, by the exit handler below.
        if (!session.process.hasExited) ui.notice((err as Error).message);
      }
      idlePrompt();
    };

    const mode = async (id: string) => {
      if (!id) listModes(session, ui);
      else {
        try {
          const m = await session.setMode(id);
          ui.notice(`mode: ${m.id} (${m.name})`);
        } catch (err) {
          if (!session.process.hasExited) ui.notice((err as Error).message);
        }
      }
      if (!session.running) idlePrompt();
    };

    void session.process.exited.then((exit) => {
      if (quitting) return;
      ui.endTurn();
      ui.notice(describeExit(o.command, exit));
      void quit(EXIT.ERROR);
    });
    rl.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    for (const s of signals) process.on(s, onSignal);
    rl.on('close', () => {
      inputEnded = true;
      // No more answers can come: an open question is cancelled; a running turn is let finish.
      ui.cancelQuestion();
      if (!session.running) void quit(EXIT.OK);
    });
    rl.on('line', (line) => {
      armed = false;
      const t = line.trim();
      if (t === '/quit' || t === '/exit') return void quit(EXIT.OK);
      if (t === '/cancel') return cancel();
      if (ui.answer(line)) return;
      if (t === '/ide status' || t === '/ide') ideStatus(companion, ui);
      else if (t === '/help') ui.line(help(session));
      else if (t === '/mode' || t.startsWith('/mode ')) return void mode(t.slice('/mode'.length).trim());
      else if (t.startsWith('/')) ui.notice(`unknown command ${t}. ${help(session)}`);
      else if (t && session.running) ui.notice('a turn is running: wait for it, or /cancel it');
      else if (t) return void runTurn(line);
      if (!session.running) rl.prompt();
    });
  });
}

/** One connection attempt now (so the first prompt knows), then reconnecting in the background. */
async function connectEditor(o: ReplOptions, ui: TerminalUi): Promise<CompanionClient> {
  const client = makeClient({ json: false, cwd: o.cwd, timeoutMs: Math.min(o.timeoutMs, 10_000) }, { reconnect: true, heartbeatMs: 10_000 });
  const ok = await client.connect();
  let last = client.status.status;
  client.start();
  ui.notice(
    ok
      ? `IDE: connected to ${client.ideInfo?.displayName ?? 'the editor'}`
      : `IDE: not connected (${client.status.details ?? 'no companion'}); the agent's writes will be asked here`,
  );
  client.onStatusChange((s) => {
    // Retries pass through "connecting": only real changes are told.
    if (s.status === 'connecting' || s.status === last) return;
    last = s.status;
    ui.notice(
      s.status === 'connected' ? `IDE: connected to ${client.ideInfo?.displayName ?? 'the editor'}` : `IDE: disconnected${s.details ? ` (${s.details})` : ''}`,
    );
  });
  return client;
}

function listModes(session: AgentSession, ui: TerminalUi): void {
  const state = session.modes;
  if (!state) return ui.line('The agent offers no modes.');
  ui.line('Modes (* current; /mode ID switches):');
  for (const m of state.availableModes) {
    ui.line(`  ${m.id === state.currentModeId ? '*' : '-'} ${m.id}: ${m.name}${m.description ? `, ${m.description}` : ''}`);
  }
}

function ideStatus(client: CompanionClient | undefined, ui: TerminalUi): void {
  if (!client) return ui.line('IDE mode is off (--no-ide): writes are asked here.');
  const s = client.status;
  if (s.status !== 'connected') return ui.line(`Disconnected${s.details ? `: ${s.details}` : ''}. Writes are asked here.`);
  ui.line(
    `Connected to ${client.ideInfo?.displayName ?? 'the editor'}${client.isDiffingEnabled() ? ' (diffs in the editor)' : ' (no diffs offered: writes are asked here)'}`,
  );
  const files = client.context.get()?.workspaceState?.openFiles ?? [];
  for (const f of files) {
    const where =
      f.isActive && f.cursor ? ` (cursor ${f.cursor.line}:${f.cursor.character}${f.selectedText ? `, ${f.selectedText.length} characters selected` : ''})` : '';
    ui.line(`  ${f.isActive ? '*' : '-'} ${f.path}${where}`);
  }
}
