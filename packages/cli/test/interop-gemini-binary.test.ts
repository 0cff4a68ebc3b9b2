/**
 * End to end with the real `gemini` 0.61.0 binary: `ide-companion serve` in one
 * tmux server, the interactive CLI in another, scripted model turns
 * (--fake-responses) proposing a write_file, and the user answering in serve's
 * terminal or in the CLI's. Both share a private TMPDIR, so the CLI finds only
 * this serve's discovery file. See docs/interop-testing.md.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  findGeminiCli,
  type FakeTurn,
  geminiCommand,
  makeGeminiRunDirs,
  repoRoot,
  shellCommand,
  skipUnless,
  sleep,
  submitLine,
  Tmux,
  waitFor,
  waitIdeConnected,
  which,
  writeFileTurns,
  editorWriting,
} from '@ide-companion/testkit';
import { SERVE_IDE_INFO } from '@ide-companion/terminal';

const cli = findGeminiCli();
const skip =
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux');

/** The CLI takes ~5 s to start here when idle; a shared 2-core machine can take many times that. */
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 6 * 60_000;
const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

const ORIGINAL = 'original line\n';
const PROPOSAL = 'line from the model\n';
const EDITED = 'line the user wrote instead\n';

interface Scenario {
  workspace: string;
  /** TMPDIR of both serve and gemini. */
  tmpdir: string;
  /** What `/ide status` said once connected. */
  ideStatus: string;
  /** The file the scripted model writes. */
  file: string;
  serve: Tmux;
  gemini: Tmux;
}

/**
 * serve and an interactive gemini, connected, in throwaway dirs; torn down
 * when the test ends. The scripted model writes PROPOSAL to a.txt; serve's
 * $EDITOR replaces whatever it is given with EDITED.
 */
async function startScenario(t: TestContext, turns: readonly FakeTurn[] = writeFileTurns('a.txt', PROPOSAL)): Promise<Scenario> {
  const began = Date.now();
  const dir = makeGeminiRunDirs('ide-companion-e2e-', { files: { 'a.txt': ORIGINAL }, turns });
  const serve = new Tmux(160, 50);
  const gemini = new Tmux(200, 50);
  t.after(async () => {
    await gemini.stop();
    await serve.stop();
    dir.cleanup();
  });
  const { workspace, tmpdir } = dir;
  const file = path.join(workspace, 'a.txt');
  // $EDITOR: replaces the file it is given, as a user rewriting the proposal would.
  const editor = editorWriting(dir.path, EDITED);

  serve.start(shellCommand([process.execPath, BIN, 'serve', '--workspace', workspace, '--no-color'], { TMPDIR: tmpdir, EDITOR: editor }), {
    cwd: dir.path,
  });
  await serve.waitForText(`cd ${workspace} && gemini`, STEP_TIMEOUT_MS);

  const cliStarted = Date.now();
  gemini.start(geminiCommand(cli!, dir), { cwd: workspace });
  await gemini.waitForText('Type your message', START_TIMEOUT_MS);
  const promptShown = Date.now();
  await serve.waitForText('1 CLI session connected', START_TIMEOUT_MS);
  t.diagnostic(`serve ready ${cliStarted - began} ms; gemini prompt after ${promptShown - cliStarted} ms, connected after ${Date.now() - cliStarted} ms`);
  const scenario = { workspace, tmpdir, file, serve, gemini, ideStatus: '' };
  scenario.ideStatus = await ideStatusConnected(scenario);
  return scenario;
}

/** `/ide status` until it says Connected (testkit's waitIdeConnected); that line. */
async function ideStatusConnected(s: Scenario): Promise<string> {
  return (await waitIdeConnected(s.gemini, START_TIMEOUT_MS)).status;
}

/** Types a line into the CLI's input box and submits it (testkit's submitLine). */
function submit(s: Scenario, text: string): Promise<void> {
  return submitLine(s.gemini, text, STEP_TIMEOUT_MS);
}

/** The scripted write_file reaches serve as a diff, and the CLI waits on its own confirmation. */
async function proposeWrite(s: Scenario): Promise<void> {
  await submit(s, 'please write a.txt');
  await s.serve.waitForText('[a]ccept', STEP_TIMEOUT_MS);
  const screen = s.serve.screen();
  assert.match(screen, new RegExp(`proposes a change to ${s.file}`));
  assert.match(screen, /^-original line$/m);
  assert.match(screen, /^\+line from the model$/m);
  await s.gemini.waitForText('Apply this change?', STEP_TIMEOUT_MS);
}

/** Answers serve's prompt: one key, no Enter. */
function answerInServe(s: Scenario, key: 'a' | 'r' | 'e'): void {
  s.serve.type(key);
}

/** `e`: serve runs $EDITOR on the proposal and shows the edited diff again. */
async function editInServe(s: Scenario): Promise<void> {
  answerInServe(s, 'e');
  await s.serve.waitForText('(with your edits)', STEP_TIMEOUT_MS);
  await s.serve.waitForText(/^\+line the user wrote instead$/m, STEP_TIMEOUT_MS);
}

async function fileHolds(s: Scenario, expected: string): Promise<void> {
  await waitFor(() => fs.readFileSync(s.file, 'utf8') === expected, `${s.file} to hold ${JSON.stringify(expected)}`, STEP_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; it holds ${JSON.stringify(fs.readFileSync(s.file, 'utf8'))}\n--- gemini ---\n${s.gemini.screen()}`);
  });
}

/**
 * A test with a fresh, connected scenario. A failure carries both screens:
 * a wait that timed out on one terminal is usually explained by the other.
 */
function scenarioTest(name: string, body: (s: Scenario) => Promise<void>, turns?: readonly FakeTurn[]): void {
  test(name, { skip, timeout: TEST_TIMEOUT_MS }, async (t) => {
    const s = await startScenario(t, turns);
    try {
      await body(s);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const screens = `\n=== gemini ===\n${s.gemini.screen().trimEnd()}\n=== serve ===\n${s.serve.screen().trimEnd()}`;
      throw Object.assign(err instanceof Error ? err : new Error(message), { message: message + screens });
    }
  });
}

scenarioTest('/ide status in the real CLI reports it is connected to ide-companion serve', async (s) => {
  assert.equal(s.ideStatus, `Connected to ${SERVE_IDE_INFO.displayName}`);
});

scenarioTest("a write accepted in serve after editing it in $EDITOR leaves the file with the user's text", async (s) => {
  await proposeWrite(s);
  await editInServe(s);
  answerInServe(s, 'a');
  await s.serve.waitForText('Accepted with your edits', STEP_TIMEOUT_MS);
  await s.gemini.waitForText(/WriteFile.*Accepted/, STEP_TIMEOUT_MS);
  await fileHolds(s, EDITED);
  // The CLI's own record of the write shows the user's text, not the model's.
  assert.match(s.gemini.screen(), /\+ line the user wrote instead/);
});

scenarioTest("a write rejected in serve leaves the file unchanged and cancels the CLI's request", async (s) => {
  await proposeWrite(s);
  answerInServe(s, 'r');
  await s.serve.waitForText('Rejected:', STEP_TIMEOUT_MS);
  await s.gemini.waitForText(/WriteFile.*Rejected/, STEP_TIMEOUT_MS);
  await s.gemini.waitForText('Request cancelled', STEP_TIMEOUT_MS);
  assert.equal(fs.readFileSync(s.file, 'utf8'), ORIGINAL);
});

scenarioTest("allowing the write in the CLI's terminal keeps the edits made in serve (closeDiff answers JSON)", async (s) => {
  // The CLI answers its own "Apply this change?" by calling closeDiff and writes
  // the `content` it parses from the JSON answer: raw text would lose the edit.
  await proposeWrite(s);
  await editInServe(s);
  s.gemini.keys('Enter'); // "1. Allow once" is selected
  await s.serve.waitForText('answered in the Gemini CLI terminal', STEP_TIMEOUT_MS);
  await s.gemini.waitForText(/WriteFile.*Accepted/, STEP_TIMEOUT_MS);
  await fileHolds(s, EDITED);
});

scenarioTest("declining the write in the CLI's terminal closes serve's review and leaves the file unchanged", async (s) => {
  await proposeWrite(s);
  s.gemini.keys('Escape'); // "3. No, suggest changes (esc)"
  await s.serve.waitForText('answered in the Gemini CLI terminal', STEP_TIMEOUT_MS);
  await s.gemini.waitForText(/WriteFile.*Rejected/, STEP_TIMEOUT_MS);
  await s.gemini.waitForText('Request cancelled', STEP_TIMEOUT_MS);
  assert.equal(fs.readFileSync(s.file, 'utf8'), ORIGINAL);
  // serve no longer offers the closed proposal: an answer now changes nothing.
  answerInServe(s, 'a');
  await sleep(1_000);
  assert.equal(fs.readFileSync(s.file, 'utf8'), ORIGINAL);
});

/**
 * The request the CLI sent to the model, from the error report it writes to
 * TMPDIR when the scripted turns run out ("No more mock responses ..., got
 * request: {...}"): the one place a test can read the real prompt.
 */
async function promptSentToModel(s: Scenario): Promise<{ contents: Array<{ parts: Array<{ text?: string }> }> }> {
  // Polled until it parses: the report may be read while the CLI still writes it.
  const message = await waitFor(
    () => {
      const report = fs.readdirSync(s.tmpdir).find((f) => f.startsWith('gemini-client-error-') && f.endsWith('.json'));
      if (!report) return undefined;
      return (JSON.parse(fs.readFileSync(path.join(s.tmpdir, report), 'utf8')) as { error: { message: string } }).error.message;
    },
    'the CLI to report the model call it could not answer',
    STEP_TIMEOUT_MS,
  );
  const marker = 'got request:\n';
  assert.ok(message.includes(marker), `unexpected error report: ${message.slice(0, 300)}`);
  return JSON.parse(message.slice(message.indexOf(marker) + marker.length));
}

// No scripted turns: the one model call fails and the CLI's error report holds the prompt.
scenarioTest(
  "a file saved in the workspace under serve reaches the model's prompt as the active file",
  async (s) => {
    const notes = path.join(s.workspace, 'notes.md');
    fs.writeFileSync(notes, '# notes\n');
    // The CLI's footer counts the open files its IDE reported.
    await s.gemini.waitForText('1 open file', STEP_TIMEOUT_MS);
    await ideStatusConnected(s);
    await s.gemini.waitForText('notes.md (active)', STEP_TIMEOUT_MS);
    await submit(s, 'what am I looking at');
    const request = await promptSentToModel(s);
    const texts = request.contents.flatMap((c) => c.parts.map((p) => p.text ?? ''));
    const editorPart = texts.find((text) => text.startsWith("Here is the user's editor context"));
    assert.ok(editorPart, `no editor context in the prompt:\n${texts.join('\n---\n').slice(0, 2000)}`);
    const json = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(editorPart)![1]!) as { activeFile?: { path: string } };
    assert.equal(json.activeFile?.path, notes);
  },
  [],
);
