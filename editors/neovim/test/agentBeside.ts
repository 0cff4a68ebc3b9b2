/**
 * A real agent CLI beside Neovim, as a user runs one: in a tmux pane of its
 * own in Neovim's folder, its model a testkit mock. For the tests of what
 * Neovim does with Claude Code, Copilot CLI and opencode.
 */
import type { TestContext } from 'node:test';
import { Tmux, waitFor } from '@ide-companion/testkit';
import { startNeovim, type NeovimSession, type StartOptions } from './harness.js';

/** Neovim with `options` and the agent's mock model from `startModel` (given Neovim, for its workspace), a tmux pane of `size` for the agent; all end after `t`. Resolves once Neovim's companion is discoverable. */
export async function besideNeovim<M extends { close(): Promise<void> }>(
  t: TestContext,
  options: StartOptions,
  startModel: (s: NeovimSession) => Promise<M>,
  size: [number, number],
): Promise<{ s: NeovimSession; model: M; tui: Tmux }> {
  const s = await startNeovim(options);
  const model = await startModel(s).catch(async (err: unknown) => {
    await s.close();
    throw err;
  });
  const tui = new Tmux(...size);
  t.after(async () => {
    await tui.stop();
    await model.close();
    await s.close();
  });
  await s.discovery();
  return { s, model, tui };
}

/** Waits until Neovim's host lists a session of `agent` (its initialize's clientInfo, as named); fails with the agent's screen. */
export async function neovimLists(s: NeovimSession, tui: Tmux, agent: string): Promise<void> {
  await waitFor(
    async () => (await s.lua<Array<{ agent: string }>>('return require("ide_companion.host").state.sessions')).some((x) => x.agent === agent),
    `Neovim to list ${agent}`,
    90_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
}
