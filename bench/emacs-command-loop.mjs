#!/usr/bin/env node
// bench-requires: emacs editors/jsonlines/host/ide-companion-bridge.mjs
/**
 * Command-loop cost of the Emacs package: what `ide-companion-mode' adds to
 * each cursor move, measured inside a real Emacs (batch, timed with
 * `float-time') over a 10 000-line multibyte file, with and without the mode
 * (with: the real bridge host running and ready, receiving every report).
 *
 * - withoutUs: move point + run `post-command-hook', the mode off.
 * - hookUs: the same with the mode on; the timer is cancelled after each
 *   move, so every move pays for scheduling one (the hook's whole work).
 * - hookAndReportUs: hookUs plus the coalesced report the timer makes when
 *   the user pauses (line and character, JSON, one line to the host): what a
 *   move costs when every move is reported, as with keys typed slower than
 *   `ide-companion-cursor-delay' (20 ms).
 * - regionReportUs: the same with a region spanning the whole file (its text,
 *   cut at 16 KiB, is sent with each report).
 *
 * addedPerCursorMoveUs = hookAndReportUs - withoutUs, next to its limit (50 µs).
 * Prints one JSON object; timing belongs here, not in the tests.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, machine, makeTempDir, runBench } from './lib/common.mjs';

const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'editors', 'emacs');
const MOVES = 20_000;
const ROUNDS = 5;
const LINES = 10_000;
const LIMIT_US = 50;

const BENCH_EL = `
(require 'ide-companion)
(defvar bench-moves (string-to-number (getenv "BENCH_MOVES")))
(defvar bench-rounds (string-to-number (getenv "BENCH_ROUNDS")))

(defun bench-move (i)
  ;; Spread over the file, so line counting is not always near the top.
  (goto-char (1+ (% (* i 7919) (buffer-size)))))

(defun bench-time (body)
  "Median over the rounds of microseconds per call of BODY."
  (let (samples)
    (dotimes (_ bench-rounds)
      (garbage-collect)
      (let ((start (float-time)))
        (dotimes (i bench-moves) (funcall body i))
        (push (/ (* 1e6 (- (float-time) start)) bench-moves) samples)))
    (nth (/ bench-rounds 2) (sort samples #'<))))

(defun bench-unschedule ()
  (when ide-companion--cursor-timer
    (cancel-timer ide-companion--cursor-timer)
    (setq ide-companion--cursor-timer nil)))

(switch-to-buffer (find-file-noselect (getenv "BENCH_FILE")))
(transient-mark-mode 1)
(let* ((without (bench-time (lambda (i) (bench-move i) (run-hooks 'post-command-hook))))
       (ready (progn (ide-companion-mode 1) (ide-companion--wait-ready 60)))
       (_ (unless ready (error "The host did not start: %s" (ide-companion--status-text))))
       (_ (ide-companion--check-focus t))
       (hook (bench-time (lambda (i) (bench-move i) (run-hooks 'post-command-hook) (bench-unschedule))))
       (report (bench-time (lambda (i) (bench-move i) (run-hooks 'post-command-hook) (bench-unschedule)
                             (ide-companion--flush-cursor))))
       (region (progn (push-mark (point-min) t t)
                      (bench-time (lambda (i) (bench-move i) (run-hooks 'post-command-hook) (bench-unschedule)
                                    (ide-companion--flush-cursor))))))
  (deactivate-mark)
  (princ (json-serialize (list :withoutUs without :hookUs hook :hookAndReportUs report :regionReportUs region
                               :emacs emacs-version)))
  (terpri)
  (ide-companion-mode -1))
`;

runBench(async () => {
  const tmp = makeTempDir('ide-companion-bench-emacs-');
  try {
    const file = path.join(tmp.path, 'big.txt');
    const lines = [];
    for (let i = 0; i < LINES; i++) lines.push(`line ${i}: héllo wörld 😀 (setq value (compute ${i}))`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const script = path.join(tmp.path, 'bench.el');
    fs.writeFileSync(script, BENCH_EL);
    log(`${ROUNDS} rounds of ${MOVES} moves, without and with ide-companion-mode`);
    const r = spawnSync('emacs', ['--batch', '-Q', '-L', PACKAGE_DIR, '-l', script], {
      encoding: 'utf8',
      cwd: tmp.path,
      env: { ...process.env, TMPDIR: tmp.path, BENCH_FILE: file, BENCH_MOVES: String(MOVES), BENCH_ROUNDS: String(ROUNDS) },
      timeout: 600_000,
    });
    if (r.status !== 0) throw new Error(`emacs exited ${r.status}: ${r.stderr.slice(-2000)}`);
    const line = r.stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
    if (!line) throw new Error(`no result from emacs: ${r.stdout.slice(-2000)} ${r.stderr.slice(-2000)}`);
    const m = JSON.parse(line);
    const round3 = (x) => Math.round(x * 1000) / 1000;
    const added = m.hookAndReportUs - m.withoutUs;
    return {
      machine: machine(),
      // Other processes on a 2-core machine move these numbers a lot: read them with the load.
      loadavg1m: Math.round(os.loadavg()[0] * 100) / 100,
      emacs: m.emacs,
      moves: MOVES,
      rounds: ROUNDS,
      lines: LINES,
      withoutUs: round3(m.withoutUs),
      hookUs: round3(m.hookUs),
      hookAndReportUs: round3(m.hookAndReportUs),
      regionReportUs: round3(m.regionReportUs),
      addedByHookUs: round3(m.hookUs - m.withoutUs),
      addedPerCursorMoveUs: round3(added),
      addedPerCursorMoveWithRegionUs: round3(m.regionReportUs - m.withoutUs),
      limitPerCursorMoveUs: LIMIT_US,
      withinLimit: added < LIMIT_US,
    };
  } finally {
    tmp.cleanup();
  }
});
