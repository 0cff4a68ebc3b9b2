;;; ide-companion.el --- Gemini CLI's IDE mode: context, diffs and terminals  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The ide-companion authors

;; Author: The ide-companion authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: tools, convenience, processes
;; SPDX-License-Identifier: Apache-2.0

;; This file is not part of GNU Emacs.

;;; Commentary:

;; `ide-companion-mode' connects Emacs to Gemini CLI's IDE mode (and Qwen
;; Code's, Claude Code's, ...): an agent started in a terminal inside this
;; Emacs (`M-x ide-companion-gemini' opens one) sees the files you visit,
;; point and the region, shows each edit it proposes as a diff to accept
;; (`C-c C-c') or reject (`C-c C-k'), and can open files, read diagnostics
;; and save buffers.  Emacs runs a small Node.js host (Node.js 20 or newer)
;; and talks to it in JSON lines over pipes; `M-x ide-companion-doctor' says
;; what is missing.  One file per concern beside this one; see README.md.

;;; Code:

(require 'ide-companion-actions)        ; and so -diff, -context, -host, -options
(declare-function make-term "term" (name program &optional startfile &rest switches))
(declare-function term-mode "term" ())
(declare-function term-char-mode "term" ())
(declare-function vterm "ext:vterm" (&optional arg))
(declare-function eat "ext:eat" (&optional program arg))
(declare-function eat-make "ext:eat" (name program &optional startfile &rest switches))
(defvar vterm-shell)
(defvar eat-buffer-name)

(defun ide-companion--terminal-kind ()
  "The terminal to open, from `ide-companion-terminal'."
  (pcase ide-companion-terminal
    ('auto (cond ((require 'vterm nil t) 'vterm)
                 ((require 'eat nil t) 'eat)
                 (t 'term)))
    (kind kind)))

(defun ide-companion--open-terminal (command name)
  "Run COMMAND in a new terminal buffer called NAME; return the buffer.
COMMAND is a shell command line, or a list (a program and its arguments)
run without a shell, but in vterm, which runs a shell: each word quoted."
  (let ((line (if (listp command) (mapconcat #'shell-quote-argument command " ") command))
        (bare (string-trim name "\\*" "\\*")))
    (pcase (ide-companion--terminal-kind)
      ('vterm (require 'vterm) (let ((vterm-shell line)) (vterm name)))
      ('eat (require 'eat)
            (if (listp command) (pop-to-buffer (apply #'eat-make bare (car command) nil (cdr command)))
              (let ((eat-buffer-name name)) (eat command t))))
      (_
       (require 'term)
       (let ((buffer (if (listp command) (apply #'make-term bare (car command) nil (cdr command))
                       (make-term bare shell-file-name nil shell-command-switch command))))
         (with-current-buffer buffer (term-mode) (term-char-mode))
         (pop-to-buffer buffer))))))

(defun ide-companion--gemini-missing ()
  "Return why `ide-companion-gemini-command' cannot run, or nil."
  (let ((program (car (split-string-and-unquote ide-companion-gemini-command))))
    (unless (and program (executable-find program))
      (format "`%s' is not on `exec-path'; install Gemini CLI (npm install -g @google/gemini-cli) or set `ide-companion-gemini-command'"
              (or program ide-companion-gemini-command)))))

(defun ide-companion--status-text ()
  "One line saying what the companion is doing."
  (cond
   (ide-companion--ready
    (let ((diffs (hash-table-count ide-companion--diffs)))
      (format "ide-companion: listening on port %s %s%s; discovery file %s"
              (plist-get ide-companion--ready :port) (plist-get ide-companion--ready :summary)
              (if (> diffs 0) (format ", %d diff%s open" diffs (if (= diffs 1) "" "s")) "")
              (plist-get ide-companion--ready :discoveryFile))))
   ((ide-companion--running-p) "ide-companion: the host is starting")
   (t (format "ide-companion: not running%s"
              (if ide-companion--last-error (concat ": " ide-companion--last-error) "")))))

;;;###autoload
(define-minor-mode ide-companion-mode
  "Connect this Emacs to Gemini CLI's IDE mode.
With the mode on, a companion host runs for this Emacs: a `gemini'
started in a terminal inside Emacs connects to it, sees the files you
work on, point and region, and shows the edits it proposes as diffs
to accept (\\[ide-companion-accept]) or reject (\\[ide-companion-reject]).
\\[ide-companion-gemini] opens Gemini CLI in a terminal."
  :global t
  :group 'ide-companion
  :lighter (:eval (if ide-companion--ready (concat " " (plist-get ide-companion--ready :label)) " IDE!"))
  (dolist (hook ide-companion--hooks)
    (funcall (if ide-companion-mode #'add-hook #'remove-hook) (car hook) (cdr hook)))
  (remove-function after-focus-change-function #'ide-companion--focus-change)
  (when ide-companion--idle-timer (cancel-timer ide-companion--idle-timer))
  (setq ide-companion--idle-timer
        (and ide-companion-mode (run-with-idle-timer ide-companion-cursor-delay t #'ide-companion--on-idle)))
  (if (not ide-companion-mode)
      (ide-companion--stop)
    (add-function :after after-focus-change-function #'ide-companion--focus-change)
    (let ((problem (ide-companion--start)))
      (when problem (message "ide-companion: %s" problem)))))

;;;###autoload
(defun ide-companion-start ()
  "Start the companion (and `ide-companion-mode') unless it is running."
  (interactive)
  (if (not ide-companion-mode)
      (ide-companion-mode 1)
    (let ((problem (ide-companion--start)))
      (when problem (user-error "Ide-companion: %s" problem))))
  (when (and (called-interactively-p 'interactive) (not (ide-companion--running-p)))
    (user-error "Ide-companion: %s" ide-companion--last-error)))

(defun ide-companion-send-to-agent (start end)
  "Send the file, or the lines of the region START..END, to Claude Code.
It lands in its prompt as an @-mention; the host says when no agent takes it."
  (interactive (if (use-region-p) (list (region-beginning) (region-end)) (list nil nil)))
  (unless buffer-file-name (user-error "This buffer visits no file"))
  (unless (ide-companion--send
           (append (list :type "mention" :path (file-truename buffer-file-name))
                   (when start
                     (list :startLine (line-number-at-pos start)
                           :endLine (line-number-at-pos (if (and (> end start) (= (save-excursion (goto-char end) (current-column)) 0)) (1- end) end))))))
    (user-error "Ide-companion: not running (M-x ide-companion-start)")))

(defun ide-companion-stop ()
  "Stop the companion; the agent sessions connected to it disconnect."
  (interactive)
  (ide-companion--stop)
  (message "ide-companion: stopped"))

(defun ide-companion-status ()
  "Say whether the companion is running, its port and connected sessions."
  (interactive)
  (message "%s" (ide-companion--status-text)))

(defun ide-companion-accept ()
  "Accept the diff of this buffer (or the only open one) as edited."
  (interactive)
  (ide-companion--accept-diff (or (ide-companion--current-diff) (user-error "No diff is open"))))

(defun ide-companion-reject ()
  "Reject the diff of this buffer (or the only open one)."
  (interactive)
  (ide-companion--reject-diff (or (ide-companion--current-diff) (user-error "No diff is open"))))

;;;###autoload
(defun ide-companion-gemini ()
  "Open Gemini CLI in a terminal tied to this Emacs, or show the one open."
  (interactive)
  (setq ide-companion--gemini-buffer
        (ide-companion--run-terminal ide-companion--gemini-buffer "*gemini*" #'ide-companion--gemini-missing
                                     (lambda () ide-companion-gemini-command))))

;;;###autoload
(defun ide-companion-agent (command)
  "Open ACP agent COMMAND under `ide-companion agent' in a terminal of this Emacs.
COMMAND is a list: `ide-companion-agent-command', else read.  Show the
one open if it runs."
  (interactive (list (or ide-companion-agent-command
                         (and (not (buffer-live-p ide-companion--agent-buffer))
                              (split-string-and-unquote (read-string "ACP agent command (e.g. gemini --acp): "))))))
  (setq ide-companion--agent-buffer
        (ide-companion--run-terminal
         ide-companion--agent-buffer "*ide-companion agent*"
         (lambda () (unless (and command (executable-find (car command)))
                      (format "give the ACP agent's command, on `exec-path' (%s): set `ide-companion-agent-command'; `ide-companion agent --list' names the ones on PATH"
                              (or (car command) "none given"))))
         ;; `ide-companion agent --' as the host found it (shared/acpLauncher.ts).
         (lambda () (let ((acp (plist-get ide-companion--ready :acp)))
                      (append (or (plist-get acp :argv) (user-error "Ide-companion: %s" (plist-get acp :missing))) command))))))

(defun ide-companion--run-terminal (buffer name missing command)
  "Show BUFFER if its program lives, else open a terminal NAME with COMMAND.
MISSING returns why it cannot run, or nil; COMMAND returns what to run, once
the companion is ready (its environment is the terminal's).  Return the buffer."
  (if (and (buffer-live-p buffer) (process-live-p (get-buffer-process buffer)))
      (pop-to-buffer buffer)
    (let ((why (funcall missing)))
      (when why (user-error "Ide-companion: %s" why)))
    (ide-companion-start)
    (unless (ide-companion--wait-ready 20)
      (user-error "Ide-companion: the companion is not ready: %s"
                  (or ide-companion--last-error "the host did not answer within 20 seconds")))
    (prog1 (let ((default-directory (file-name-as-directory (or (and buffer-file-name (ide-companion--project-root default-directory))
                                                                 (car ide-companion--roots) default-directory))))
             (ide-companion--open-terminal (funcall command) name))
      ;; In a container the host's variables send the agent to loopback: said, with what other terminals need.
      (when (plist-get ide-companion--ready :containerSaid)
        (message "ide-companion: %s" (plist-get ide-companion--ready :containerSaid))))))

(defun ide-companion--doctor-lines ()
  "The findings of `ide-companion-doctor', one string each.
What must hold before a host runs, then the running host's own `health'."
  (let ((problem (ide-companion--start-problem))
        (gemini (ide-companion--gemini-missing)))
    (append
     (if problem (list (concat "FAIL " problem))
       (list (format "ok   Node.js %s at %s, Emacs %s with native JSON" (cdr (ide-companion--node-version))
                     (executable-find ide-companion-node-program) emacs-version)
             (format "ok   host %s (%s)" (ide-companion--host-file) (cdr (ide-companion--host-found)))))
     (cond (ide-companion--ready (ide-companion--health))
           ((ide-companion--running-p) '("WAIT host starting"))
           (t (list (format "FAIL host not running%s (M-x ide-companion-start)"
                            (if ide-companion--last-error (concat ": " ide-companion--last-error) "")))))
     (list
      (if gemini (format "FAIL gemini: %s" gemini)
        (format "ok   gemini %s" (executable-find (car (split-string-and-unquote ide-companion-gemini-command)))))
      (format "ok   terminal for M-x ide-companion-gemini: %s" (ide-companion--terminal-kind))))))

(defun ide-companion-doctor ()
  "Check what the companion needs and show the findings in a buffer.
Return the findings as a string."
  (interactive)
  (let ((text (string-join (ide-companion--doctor-lines) "\n")))
    (when (called-interactively-p 'interactive)
      (with-help-window "*ide-companion-doctor*" (princ text)))
    text))

(provide 'ide-companion)
;;; ide-companion.el ends here
