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

/** How long a submitted `/ide status` may stay in the input box before its Enter counts as dropped. */
const RESUBMIT_MS = 5_000;

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
/** A prompt line, in the input box or the history above it, after an editor split's border when the CLI runs in a split. */
const PROMPT_LINE = /(^|[│|])\s*> /;

/** Whether the CLI's input box (the last ` > ` line) holds `text`. */
async function inputShows(tui: TypingUi, text: string): Promise<boolean> {
  return (
    (await tui.screen())
      .split('\n')
      .filter((line) => PROMPT_LINE.test(line))
      .at(-1)
      ?.includes(text) ?? false
  );
}

export async function submitLine(tui: TypingUi, text: string, timeoutMs = 60_000): Promise<void> {
  const shows = () => inputShows(tui, text);
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

/** Submits `/ide status` once and returns the CLI's new answer's first line ("Connected to Emacs", "Connecting...", "Disconnected ..."). */
export async function ideStatus(tui: TypingUi, timeoutMs = 60_000): Promise<string> {
  const before = [...(await tui.screen()).matchAll(IDE_STATUS_LINE)].length;
  await submitLine(tui, '/ide status');
  let enteredAt = Date.now();
  const lines = await waitFor(
    async () => {
      const screen = await tui.screen();
      const all = [...screen.matchAll(IDE_STATUS_LINE)];
      if (all.length > before) return all;
      // The screen scrolled older answers away: an answer below the last prompt submitted, `/ide status`
      // (the input box, empty, may be the last prompt line, or not be drawn at all), is the new one.
      const rows = screen.split('\n');
      const prompts = rows.flatMap((row, i) => (PROMPT_LINE.test(row) ? [i] : []));
      if (prompts.length > 1 && rows[prompts.at(-1)!]!.includes('Type your message')) prompts.pop();
      const last = prompts.at(-1);
      if (last !== undefined && rows[last]!.includes('/ide status')) {
        const below = [
          ...rows
            .slice(last + 1)
            .join('\n')
            .matchAll(IDE_STATUS_LINE),
        ];
        if (below.length > 0) return below;
      }
      // An Enter the CLI dropped (seen as it finished a turn, under load) leaves the line in the box; a
      // slash command opens no dialog a second Enter could answer, so it is submitted again.
      if (Date.now() - enteredAt > RESUBMIT_MS && (await inputShows(tui, '/ide status'))) {
        await tui.keys('Enter');
        enteredAt = Date.now();
      }
      return undefined;
    },
    'an /ide status answer',
    timeoutMs,
  );
  return lines[lines.length - 1]![1]!;
}

/**
 * Runs `/ide status` until it reports Connected and returns that line with the
 * screen after it (the open files it lists). The CLI says Connected only after
 * its tools/list, so a first look may still say "Connecting...".
 */
export async function waitIdeConnected(tui: TypingUi, timeoutMs = 120_000): Promise<{ status: string; screen: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const latest = await ideStatus(tui);
    if (latest.startsWith('Connected to')) return { status: latest, screen: await tui.screen() };
    if (Date.now() > deadline) throw new Error(`the CLI never connected; /ide status says: ${latest}\n--- screen ---\n${await tui.screen()}`);
    await sleep(1_000);
  }
}
