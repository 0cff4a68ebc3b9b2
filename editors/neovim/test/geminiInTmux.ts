/**
 * Neovim as a user runs it with the real `gemini`: with a UI, in tmux, the
 * plugin set up so that `:Gemini` runs the pinned CLI with scripted turns,
 * and reachable over --listen for the assertions. For the end-to-end tests
 * that are Neovim's own (the edited accept, a revert after an accept, the
 * container); the keyboard after a diff is the conformance suite's
 * (packages/testkit/src/conformance/agentTerminal.ts).
 */
import * as path from 'node:path';
import {
  findGeminiCli,
  geminiEnv,
  makeGeminiRunDirs,
  shellCommand,
  skipUnless,
  Tmux,
  waitFor,
  which,
  writeAcpGeminiScript,
  writeGeminiScript,
  type FakeTurn,
  type GeminiRunDirs,
} from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';
import { attachWhenListening, hasNvim, nvimPath } from './harness.js';

/** The CLI takes ~5 s to start when the machine is idle; a shared 2-core machine can take many times that. */
export const START_TIMEOUT_MS = 120_000;
export const STEP_TIMEOUT_MS = 60_000;

/** Why these tests cannot run here (nvim, the pinned CLI, tmux), or false. */
export const skipGeminiInTmux =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

export interface GeminiInTmuxOptions {
  /** The temp dir's name prefix. */
  prefix: string;
  files: Record<string, string>;
  turns: readonly FakeTurn[];
  /** The tmux pane's columns and rows. */
  size: [number, number];
  /** More of Neovim's command line (`-c 'edit a.txt'`). */
  args?: string[];
  /** The sh command line that runs Neovim's (`nvim ...`): in a container, say. Default: as is. */
  wrap?: (nvim: string) => string[];
  /** Neovim's environment (default: the CLI's, from geminiEnv, which :Gemini's terminal inherits). */
  env?: (dir: GeminiRunDirs) => Record<string, string>;
  /** Variables not inherited from the test runner (default testkit's STRAY_IDE_ENV). */
  unset?: readonly string[];
  /** agent_command is the pinned CLI as an ACP agent (writeAcpGeminiScript), for :IdeAgent. */
  acp?: boolean;
}

export type GeminiInTmux = Awaited<ReturnType<typeof startGeminiInTmux>>;

/** Starts it and waits for its companion; `close` (for t.after) ends gemini, tmux and the temp dir. */
export async function startGeminiInTmux(options: GeminiInTmuxOptions) {
  const dir = makeGeminiRunDirs(options.prefix, { files: options.files, turns: options.turns });
  const tmux = new Tmux(...options.size);
  let geminiPid: number | undefined;
  const close = async () => {
    if (geminiPid) {
      try {
        process.kill(-geminiPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await tmux.stop();
    dir.cleanup();
  };
  try {
    // What :Gemini runs: the pinned CLI with scripted turns, reviewing diffs in the IDE.
    const wrapper = writeGeminiScript(path.join(dir.path, 'gemini.sh'), findGeminiCli()!, dir.fakeResponses);
    const socket = path.join(dir.path, 'nvim.sock');
    const agent = options.acp ? `agent_command = { '${writeAcpGeminiScript(dir, findGeminiCli()!)}' }, ` : '';
    const setup = `require('ide_companion').setup({ ${agent}terminal = { cmd = { '${wrapper}' } }, log_file = '${path.join(dir.path, 'host.log')}' })`;
    const argv = [
      nvimPath!,
      '--clean',
      '-n',
      '--listen',
      socket,
      '-c',
      'let g:ide_companion_auto_setup = v:false',
      '-c',
      `set rtp^=${PLUGIN_ROOT}`,
      '-c',
      `lua ${setup}`,
      ...(options.args ?? []),
    ];
    const command = options.wrap ? options.wrap(shellCommand(argv, {})) : argv;
    const env = {
      ...(options.env ? options.env(dir) : geminiEnv(dir)),
      XDG_CACHE_HOME: path.join(dir.path, 'cache'),
      XDG_STATE_HOME: path.join(dir.path, 'state'),
      TERM: 'xterm-256color',
    };
    tmux.start(shellCommand(command, env, options.unset), { cwd: dir.workspace });
    const { nvim, lua } = await attachWhenListening(socket, STEP_TIMEOUT_MS);
    await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion', STEP_TIMEOUT_MS);
    return {
      dir,
      tmux,
      nvim,
      lua,
      close,
      /** The user types :Gemini; resolves once the CLI shows its prompt. */
      async gemini(): Promise<void> {
        tmux.type(':Gemini');
        tmux.keys('Enter');
        geminiPid = await waitFor(
          async () => (await lua<number | false>('local t = require("ide_companion.terminal").info(); return t and t.pid or false')) || undefined,
          'the terminal job',
          STEP_TIMEOUT_MS,
        );
        await tmux.waitForText('Type your message', START_TIMEOUT_MS);
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
