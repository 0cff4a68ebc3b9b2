/**
 * The Emacs end's conformance driver: a real `emacs -nw` in tmux with the
 * package (harness.ts); the user's keys go in through tmux, state is read
 * with emacsclient. flymake stands in for a linter on u.txt (the optional
 * arguments' diagnostics rows).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  makeTempDir,
  skipUnless,
  sleep,
  waitFor,
  type AgentTerminal,
  type DiffEnding,
  type EndDriver,
  type EndSession,
  type Position,
} from '@ide-companion/testkit';
import { elispString, mxGemini, startEmacs, TIMEOUT, VTERM_DIR, waitForProposalBuffer, type EmacsSession } from './harness.js';

const WARNING_BACKEND = `
(require 'flymake)
(defun test-warn (report-fn &rest _)
  (funcall report-fn (list (flymake-make-diagnostic (current-buffer) (point-min) (1+ (point-min)) :warning "w"))))
(add-hook 'find-file-hook
          (lambda ()
            (when (string-suffix-p "/u.txt" buffer-file-name)
              (setq-local flymake-diagnostic-functions (list #'test-warn))
              (flymake-mode 1))))`;

/** Keys that put point before the character at `p` (1-based, in characters); with an active region they keep the mark. */
const goTo = (p: Position) => ['M-<', ...Array<string>(p.line - 1).fill('C-n'), 'C-a', ...Array<string>(p.character - 1).fill('C-f')];

const ENDING_KEYS: Partial<Record<DiffEnding, string[]>> = { accept: ['C-c', 'C-c'], reject: ['C-c', 'C-k'], close: ['q', 'y'] };

/**
 * M-x ide-companion-gemini typed by the user, the agent in Emacs's term (in
 * char mode, where typing reaches it) or vterm; keys and screen through tmux.
 */
async function startAgentTerminal(emacs: EmacsSession, command: string, kind: string): Promise<AgentTerminal> {
  await emacs.eval(`(progn (setq ide-companion-terminal '${kind}) (setq ide-companion-gemini-command ${elispString(command)}) t)`);
  const pid = await mxGemini(emacs, kind as 'term' | 'vterm');
  const { tmux } = emacs;
  return {
    type: (text) => tmux.type(text),
    keys: (...keys) => tmux.keys(...keys),
    screen: () => tmux.screen(),
    // The agent's buffer in the selected window, term in char mode, no minibuffer open.
    hasKeyboard: async () =>
      (await emacs.evalJson<boolean>(
        '(if (and (eq (window-buffer (selected-window)) ide-companion--gemini-buffer) (with-current-buffer ide-companion--gemini-buffer (or (not (eq major-mode (quote term-mode))) (term-in-char-mode))) (not (active-minibuffer-window))) t :false)',
      )) === true,
    where: async () =>
      `Emacs: ${await emacs.eval('(with-current-buffer (window-buffer (selected-window)) (list (buffer-name) major-mode (and (fboundp (quote term-in-char-mode)) (term-in-char-mode))))')}\n--- screen ---\n${tmux.screen()}`,
    async diffShown(file) {
      await waitFor(
        async () => (await emacs.evalJson<string>('(buffer-name (window-buffer (selected-window)))')).startsWith('*Ediff Control Panel'),
        `the diff of ${path.basename(file)} in ediff`,
        TIMEOUT,
      );
    },
    async endDiff(file, how) {
      for (const key of ENDING_KEYS[how]!) {
        tmux.keys(key);
        if (key === 'q') await tmux.waitForText(new RegExp(`Reject .* proposal for ${path.basename(file).replace(/\./g, '\\.')}\\?`), TIMEOUT);
      }
    },
    async close() {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await emacs.eval(
        '(let ((kill-buffer-query-functions nil)) (when (buffer-live-p ide-companion--gemini-buffer) (kill-buffer ide-companion--gemini-buffer)) t)',
      );
    },
  };
}

export const emacsDriver: EndDriver = {
  name: 'emacs',
  displayName: 'Emacs',
  unsupported: {},
  agentTerminal: {
    endings: Object.fromEntries(Object.entries(ENDING_KEYS).map(([how, keys]) => [how, keys.join(' ')])),
    variants: { term: false, vterm: skipUnless(VTERM_DIR !== undefined, 'vterm', 'apt-get install -y elpa-vterm') },
  },
  endOfLine: 'afterLastCharacter',
  restartsHost: true,
  async start(files, options) {
    const agents = makeTempDir('ide-companion-emacs-agents-');
    const qwenHome = path.join(agents.path, 'qwen');
    const claudeConfigDir = path.join(agents.path, 'claude');
    // Every agent's folder named, so the host serves every face.
    const agentHomes = {
      AMP_DATA_HOME: path.join(agents.path, 'amp'),
      COPILOT_HOME: path.join(agents.path, 'copilot'),
      CODEX_HOME: path.join(agents.path, 'codex'),
    };
    // Droid's lock folder is $HOME/.factory/ide: a HOME of the session's own, with a .factory (the user has Droid).
    const home = path.join(agents.path, 'home');
    fs.mkdirSync(path.join(home, '.factory'), { recursive: true });
    let emacs: Awaited<ReturnType<typeof startEmacs>>;
    try {
      emacs = await startEmacs({
        files,
        init: WARNING_BACKEND + (options?.ampEditFile ? `\n(setq ide-companion-amp-edit-file ${elispString(options.ampEditFile)})` : ''),
        env: { HOME: home, QWEN_HOME: qwenHome, CLAUDE_CONFIG_DIR: claudeConfigDir, ...agentHomes },
        vterm: VTERM_DIR !== undefined,
      });
      await emacs.discovery();
    } catch (err) {
      agents.cleanup();
      throw err;
    }
    const proposalOf = (file: string) => waitForProposalBuffer(emacs, TIMEOUT, file);
    /** The user moves to the proposal's window (ediff leaves its control window selected). */
    const inProposal = async (file: string) => emacs.eval(`(progn (select-window (get-buffer-window ${elispString(await proposalOf(file))})) t)`);
    const session: EndSession = {
      workspace: emacs.workspace,
      tmpdir: emacs.tmp,
      qwenHome,
      claudeConfigDir,
      ampDataHome: agentHomes.AMP_DATA_HOME,
      copilotHome: agentHomes.COPILOT_HOME,
      codexHome: agentHomes.CODEX_HOME,
      factoryHome: home,
      discovery: () => emacs.discovery(),
      async open(file) {
        await emacs.eval(`(progn (find-file ${elispString(file)}) t)`);
      },
      async moveCursor(p) {
        await emacs.eval('(progn (deactivate-mark) t)');
        emacs.tmux.keys(...goTo(p));
      },
      async select(sel) {
        const [anchor, point] = sel.backward ? [sel.end, sel.start] : [sel.start, sel.end];
        await emacs.eval('(progn (deactivate-mark) t)');
        emacs.tmux.keys(...goTo(anchor), 'C-Space');
        // The mark set before the moves that make the region.
        await sleep(100);
        emacs.tmux.keys(...goTo(point));
      },
      async shownProposal(file) {
        return emacs.evalJson<string>(`(with-current-buffer ${elispString(await proposalOf(file))} (buffer-string))`);
      },
      async editProposal(file, text) {
        await emacs.eval(`(with-current-buffer ${elispString(await proposalOf(file))} (erase-buffer) (insert ${elispString(text)}) t)`);
      },
      async accept(file) {
        await inProposal(file);
        emacs.tmux.keys('C-c', 'C-c');
      },
      async reject(file) {
        await inProposal(file);
        emacs.tmux.keys('C-c', 'C-k');
      },
      async showsProposal(file) {
        return (
          (await emacs.evalJson<boolean>(
            `(let (found) (maphash (lambda (_id d) (when (equal (ide-companion--diff-path d) ${elispString(file)}) (setq found t))) ide-companion--diffs) (if found t :false))`,
          )) === true
        );
      },
      cursor: () =>
        emacs.evalJson(
          `(let ((w (selected-window)))
             (with-current-buffer (window-buffer w)
               (save-excursion
                 (goto-char (window-point w))
                 (list :path (or (buffer-file-name) "") :line (line-number-at-pos) :character (1+ (- (point) (line-beginning-position)))))))`,
        ),
      // flymake reports u.txt's warning on its own once the file is visited: wait for it.
      setWarning: (file) =>
        waitFor(
          async () =>
            (await emacs.evalJson<number>(
              `(let ((b (find-buffer-visiting ${elispString(file)}))) (if b (with-current-buffer b (length (flymake-diagnostics))) 0))`,
            )) > 0,
          'flymake to report the warning',
          TIMEOUT,
        ).then(() => undefined),
      async mention(file, startLine, endLine) {
        // The region from line startLine to the end of endLine, then M-x ide-companion-send-to-agent.
        await emacs.eval(
          `(with-current-buffer (find-file-noselect ${elispString(file)})
             (save-excursion
               (goto-char (point-min)) (forward-line ${startLine - 1})
               (let ((start (point))) (forward-line ${endLine - startLine}) (ide-companion-send-to-agent start (line-end-position)))) t)`,
        );
      },
      bufferText: async (file) =>
        (await emacs.evalJson<string | null>(
          `(let ((b (find-buffer-visiting ${elispString(file)}))) (if b (with-current-buffer b (buffer-substring-no-properties (point-min) (point-max))) :null))`,
        )) ?? undefined,
      async swapOnOpen(file, swap) {
        await emacs.eval(
          `(add-hook 'find-file-hook (lambda () (when (and (equal buffer-file-name ${elispString(file)}) (file-symlink-p ${elispString(swap)})) (rename-file ${elispString(swap)} ${elispString(file)} t))))`,
        );
      },
      async undo(file) {
        await emacs.eval(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (undo-only) t)`);
      },
      async revert(file) {
        await emacs.eval(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (revert-buffer t t t) t)`);
      },
      async setReadOnly(file) {
        await emacs.eval(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (revert-buffer t t t) (read-only-mode 1) t)`);
      },
      // "N CLI sessions (AGENT, ...)" in the doctor's host line.
      agentStatus: async () => /CLI sessions? \(([^)]*)\)/.exec(await emacs.evalJson<string>('(string-join (ide-companion--doctor-lines) "\\n")'))?.[1] ?? '',
      async killHost() {
        process.kill(await emacs.evalJson<number>('(process-id ide-companion--process)'), 'SIGKILL');
      },
      startAgentTerminal: (command, variant) => startAgentTerminal(emacs, command, variant),
      async ping() {
        await emacs.eval('t');
      },
      async close() {
        await emacs.close();
        agents.cleanup();
      },
    };
    return session;
  },
};
