/**
 * Driving the real `gemini`'s interactive UI in tmux, wherever it runs (beside
 * the editor, in a container, over SSH): type a line and submit it, and ask
 * `/ide status` until it says Connected.
 */
import { sleep, waitFor } from './wait.js';

/**
 * Where the CLI's UI is typed and read: a tmux pane (Tmux), or an editor's
 * own terminal reached through the editor (a conformance driver's). `keys`
 * takes tmux's key names (Enter, BSpace).
 */
export interface TypingUi {
  type(text: string): void | Promise<void>;
  keys(...keys: string[]): void | Promise<void>;
  screen(): string | Promise<string>;
}

/** Well past the CLI's 30 ms paste-detection window. */
const ENTER_SETTLE_MS = 300;

/** How long typed text may take to show before it counts as lost. */
const TYPED_SHOWS_MS = 10_000;

/**
 * Types a line into the CLI's input box and submits it. The CLI turns an Enter
 * read within 30 ms of a typed character into a newline (paste detection), so
 * wait until the box shows the text (the last ` > ` line, after a window
 * border when the CLI runs in an editor's split), then a little more. Keys
 * typed while the CLI redraws can be lost (seen in Emacs's vterm right after
 * its start: `/i` of `/ide status`): the box is then cleared and the line
 * typed again, at most three times.
 */
export async function submitLine(tui: TypingUi, text: string, timeoutMs = 60_000): Promise<void> {
  const shows = async () =>
    (await tui.screen())
      .split('\n')
      .filter((line) => /(^|[│|])\s*> /.test(line))
      .at(-1)
      ?.includes(text);
  for (let attempt = 1; ; attempt++) {
    await tui.type(text);
    const last = attempt === 3;
    try {
      await waitFor(shows, `the input box to show ${JSON.stringify(text)}`, last ? timeoutMs : TYPED_SHOWS_MS);
      break;
    } catch (err) {
      if (last) throw err;
      await tui.keys(...Array<string>(text.length + 10).fill('BSpace'));
      await sleep(ENTER_SETTLE_MS);
    }
  }
  await sleep(ENTER_SETTLE_MS);
  await tui.keys('Enter');
}

/** The answer's first line, at the start of a line or after an editor split's border (Neovim's │, Vim's |). */
const IDE_STATUS_LINE = /(?:^|[│|])ℹ\s+\S+\s+(Connected to .*?|Connecting\.\.\.|Disconnected.*?)\s*$/gmu;

/**
 * Runs `/ide status` until it reports Connected and returns that line with the
 * screen after it (the open files it lists). The CLI says Connected only after
 * its tools/list, so a first look may still say "Connecting...".
 */
export async function waitIdeConnected(tui: TypingUi, timeoutMs = 120_000): Promise<{ status: string; screen: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = [...(await tui.screen()).matchAll(IDE_STATUS_LINE)].length;
    await submitLine(tui, '/ide status');
    const lines = await waitFor(
      async () => {
        const all = [...(await tui.screen()).matchAll(IDE_STATUS_LINE)];
        return all.length > before ? all : undefined;
      },
      'an /ide status answer',
      60_000,
    );
    const latest = lines[lines.length - 1]![1]!;
    if (latest.startsWith('Connected to')) return { status: latest, screen: await tui.screen() };
    if (Date.now() > deadline) throw new Error(`the CLI never connected; /ide status says: ${latest}\n--- screen ---\n${await tui.screen()}`);
    await sleep(1_000);
  }
}
