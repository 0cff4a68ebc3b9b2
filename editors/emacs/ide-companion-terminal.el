;;; ide-companion-terminal.el --- Terminals tied to the companion  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The host's variables in `process-environment', so that terminals started
;; from Emacs connect to it, and the terminal `ide-companion-gemini' opens.

;;; Code:

(require 'ide-companion-options)
(declare-function make-term "term" (name program &optional startfile &rest switches))
(declare-function term-mode "term" ())
(declare-function term-char-mode "term" ())

(declare-function vterm "ext:vterm" (&optional arg))
(declare-function eat "ext:eat" (&optional program arg))
(defvar vterm-shell)
(defvar eat-buffer-name)

(defun ide-companion--environment-without-companion ()
  "`process-environment' without the variables this package set."
  (let ((names (mapcar #'car ide-companion--saved-env)))
    (cl-remove-if (lambda (entry)
                    (cl-some (lambda (name) (string-prefix-p (concat name "=") entry)) names))
                  process-environment)))

(defun ide-companion--apply-env (env)
  "Put ENV, a plist of variable keywords and strings, in `process-environment'.
Every terminal and shell started from now on inherits it, so `gemini' there
connects to this Emacs even when other editors share the folder."
  (ide-companion--restore-env)
  (cl-loop for (key value) on env by #'cddr
           for name = (substring (symbol-name key) 1)
           when (stringp value)
           do (push (cons name (getenv name)) ide-companion--saved-env)
           (setenv name value)))

(defun ide-companion--restore-env ()
  "Undo `ide-companion--apply-env'."
  (let ((saved ide-companion--saved-env))
    (setq process-environment (ide-companion--environment-without-companion)
          ide-companion--saved-env nil)
    (dolist (entry saved)
      (when (cdr entry) (setenv (car entry) (cdr entry))))))

(defun ide-companion--terminal-kind ()
  "The terminal to open, from `ide-companion-terminal'."
  (pcase ide-companion-terminal
    ('auto (cond ((require 'vterm nil t) 'vterm)
                 ((require 'eat nil t) 'eat)
                 (t 'term)))
    (kind kind)))

(defun ide-companion--open-terminal (command name)
  "Run shell COMMAND in a new terminal buffer called NAME; return the buffer."
  (pcase (ide-companion--terminal-kind)
    ('vterm (require 'vterm) (let ((vterm-shell command)) (vterm name)))
    ('eat (require 'eat) (let ((eat-buffer-name name)) (eat command t)))
    (_
     (require 'term)
     (let ((buffer (make-term (string-trim name "\\*" "\\*") shell-file-name nil shell-command-switch command)))
       (with-current-buffer buffer (term-mode) (term-char-mode))
       (pop-to-buffer buffer)))))

(defun ide-companion--gemini-missing ()
  "Return why `ide-companion-gemini-command' cannot run, or nil."
  (let ((program (car (split-string-and-unquote ide-companion-gemini-command))))
    (unless (and program (executable-find program))
      (format "`%s' is not on `exec-path'; install Gemini CLI (npm install -g @google/gemini-cli) or set `ide-companion-gemini-command'"
              (or program ide-companion-gemini-command)))))

(provide 'ide-companion-terminal)
;;; ide-companion-terminal.el ends here
