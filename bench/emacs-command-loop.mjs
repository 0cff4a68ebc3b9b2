#!/usr/bin/env node
// bench-requires: emacs editors/jsonlines/host/ide-companion-bridge.mjs
/**
 * Command-loop cost of the Emacs package: what `ide-companion-mode' adds to
 * each cursor move, measured inside a real Emacs (batch) over a 10 000-line
 * multibyte file, with and without the mode
 * (with: the real bridge host running and ready, receiving every report).
 * Moves go line by line, with a far jump every 500 moves.
 *
 * Back-to-back figures are Emacs's CPU time (`get-internal-run-time'), which
 * other processes on a shared machine do not inflate; `wallClock' has the
 * same with `float-time'.
 *
 * - withoutUs / hookUs: move point + run `post-command-hook', back to back,
 *   the mode off / on: what the hook adds to every command (it sets a flag).
 * - hookAndReportUs: each move also reported as the idle timer does once
 *   commands stop (line and character, JSON, one line to the host): the
 *   CPU cost of a move when every move is reported, as with keys slower
 *   than `ide-companion-cursor-delay' (20 ms). addedPerCursorMoveUs =
 *   hookAndReportUs - withoutUs, next to its limit (20 µs).
 * - ...PacedUs: each move timed alone with a 1 ms pause after it (the host
 *   reads meanwhile): latency seen between keys, caches cold, on a loaded
 *   machine much above the CPU cost. regionReportPacedUs: the same with a
 *   region spanning the whole file (its range goes with each report).
 * - smallRegion...: back to back, each move reported, inside a region that
 *   holds the whole of a 16 KiB file (every move changes the selected text),
 *   next to its limit (50 µs).
 * Prints one JSON object; timing belongs here, not in the tests.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, machine, makeTempDir, runBench, scaled } from './lib/common.mjs';

const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'editors', 'emacs');
const MOVES = scaled(5_000, 100);
const ROUNDS = scaled(5, 1);
const LINES = 10_000;
/** Issue 28's budget for a cursor move. */
const LIMIT_US = 20;
/** Emacs move inside a whole-file region of a 16 KiB file. */
const SMALL_BYTES = 16 * 1024;
const REGION_LIMIT_US = 50;

const BENCH_EL = `
(require 'ide-companion)
(defvar bench-moves (string-to-number (getenv "BENCH_MOVES")))
(defvar bench-rounds (string-to-number (getenv "BENCH_ROUNDS")))

(defun bench-move (i)
  ;; What keys do: the next line, a few characters in; every 500th move a
  ;; jump far away (a search, M-<), so line counting is not always local.
  (if (= 0 (% i 500))
      (goto-char (1+ (% (* i 7919) (buffer-size))))
    (forward-line 1)
    (when (eobp) (goto-char (point-min)))
    (forward-char (% i 20))))

(defun bench-median (samples)
  (nth (/ (length samples) 2) (sort samples #'<)))

(defun bench-loop (body)
  "Medians over the rounds of microseconds per call of BODY, back to back:
(CPU . WALL).  CPU is Emacs's own time (\`get-internal-run-time'), which
other processes on a loaded machine do not inflate; WALL includes them."
  (let (cpu wall)
    (dotimes (_ bench-rounds)
      (garbage-collect)
      (let ((start (float-time)) (start-cpu (float-time (get-internal-run-time))))
        (dotimes (i bench-moves) (funcall body i))
        (push (/ (* 1e6 (- (float-time (get-internal-run-time)) start-cpu)) bench-moves) cpu)
        (push (/ (* 1e6 (- (float-time) start)) bench-moves) wall)))
    (cons (bench-median cpu) (bench-median wall))))

(defun bench-paced (body moves)
  "Median over the rounds of the mean microseconds of BODY, each call timed
alone with a pause after it (a user between keys: the host reads meanwhile)."
  (let (samples)
    (dotimes (_ bench-rounds)
      (garbage-collect)
      (let ((total 0.0))
        (dotimes (i moves)
          (let ((start (float-time)))
            (funcall body i)
            (setq total (+ total (- (float-time) start))))
          (accept-process-output nil 0.001))
        (push (/ (* 1e6 total) moves) samples)))
    (bench-median samples)))

(defun bench-command (i)
  (bench-move i)
  (run-hooks 'post-command-hook))

(defun bench-command-and-report (i)
  (bench-command i)
  ;; What the idle timer runs once the commands stop.
  (ide-companion--on-idle))

(switch-to-buffer (find-file-noselect (getenv "BENCH_FILE")))
(transient-mark-mode 1)
(let* ((without (bench-loop #'bench-command))
       (without-paced (bench-paced #'bench-command (/ bench-moves 5)))
       (ready (progn (ide-companion-mode 1) (ide-companion--wait-ready 60)))
       (_ (unless ready (error "The host did not start: %s" (ide-companion--status-text))))
       (_ (ide-companion--check-focus t))
       (hook (bench-loop #'bench-command))
       (report (bench-loop #'bench-command-and-report))
       (report-paced (bench-paced #'bench-command-and-report (/ bench-moves 5)))
       (region (progn (push-mark (point-min) t t)
                      (bench-paced #'bench-command-and-report (/ bench-moves 5))))
       ;; A 16 KiB file, its whole text in the region: every report of a
       ;; move inside it (back to back, CPU) against the same moves without.
       (small (progn (deactivate-mark)
                     (switch-to-buffer (find-file-noselect (getenv "BENCH_SMALL_FILE")))
                     (push-mark (point-max) t t)
                     (goto-char (point-min))
                     (bench-loop #'bench-command-and-report)))
       (small-without (progn (ide-companion-mode -1)
                             (bench-loop #'bench-command))))
  (deactivate-mark)
  (princ (json-serialize (list :withoutUs (car without) :withoutWallUs (cdr without)
                               :hookUs (car hook) :hookWallUs (cdr hook)
                               :hookAndReportUs (car report) :hookAndReportWallUs (cdr report)
                               :withoutPacedUs without-paced :hookAndReportPacedUs report-paced
                               :regionReportPacedUs region
                               :smallRegionReportUs (car small) :smallRegionWithoutUs (car small-without)
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
    // 16 KiB of the same lines: the whole file selected fits the cap, so every move changes the selected text.
    const smallFile = path.join(tmp.path, 'small.txt');
    fs.writeFileSync(
      smallFile,
      Buffer.from(lines.join('\n'))
        .subarray(0, SMALL_BYTES)
        .toString('utf8')
        .replace(/\uFFFD$/, ''),
    );
    const script = path.join(tmp.path, 'bench.el');
    fs.writeFileSync(script, BENCH_EL);
    log(`${ROUNDS} rounds of ${MOVES} moves, without and with ide-companion-mode`);
    const r = spawnSync('emacs', ['--batch', '-Q', '-L', PACKAGE_DIR, '-l', script], {
      encoding: 'utf8',
      cwd: tmp.path,
      env: { ...process.env, TMPDIR: tmp.path, BENCH_FILE: file, BENCH_SMALL_FILE: smallFile, BENCH_MOVES: String(MOVES), BENCH_ROUNDS: String(ROUNDS) },
      timeout: 600_000,
    });
    if (r.status !== 0) throw new Error(`emacs exited ${r.status}: ${r.stderr.slice(-2000)}`);
    const line = r.stdout
      .trim()
      .split('\n')
      .reverse()
      .find((l) => l.startsWith('{'));
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
      addedByHookUs: round3(m.hookUs - m.withoutUs),
      hookAndReportUs: round3(m.hookAndReportUs),
      addedPerCursorMoveUs: round3(added),
      wallClock: {
        withoutUs: round3(m.withoutWallUs),
        hookUs: round3(m.hookWallUs),
        hookAndReportUs: round3(m.hookAndReportWallUs),
        addedPerCursorMoveUs: round3(m.hookAndReportWallUs - m.withoutWallUs),
      },
      withoutPacedUs: round3(m.withoutPacedUs),
      hookAndReportPacedUs: round3(m.hookAndReportPacedUs),
      addedPerPacedCursorMoveUs: round3(m.hookAndReportPacedUs - m.withoutPacedUs),
      regionReportPacedUs: round3(m.regionReportPacedUs),
      addedPerPacedCursorMoveWithRegionUs: round3(m.regionReportPacedUs - m.withoutPacedUs),
      limitPerCursorMoveUs: LIMIT_US,
      withinLimit: added < LIMIT_US,
      smallRegionFileBytes: SMALL_BYTES,
      smallRegionReportUs: round3(m.smallRegionReportUs),
      smallRegionWithoutUs: round3(m.smallRegionWithoutUs),
      addedPerMoveInSmallRegionUs: round3(m.smallRegionReportUs - m.smallRegionWithoutUs),
      limitPerMoveInSmallRegionUs: REGION_LIMIT_US,
      smallRegionWithinLimit: m.smallRegionReportUs - m.smallRegionWithoutUs < REGION_LIMIT_US,
    };
  } finally {
    tmp.cleanup();
  }
});
