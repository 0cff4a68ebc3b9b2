;;; ide-companion-terminal.el --- terminals tied to the companion  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The ide-companion authors
;; SPDX-License-Identifier: Apache-2.0

;; This file is not part of GNU Emacs.

;;; Commentary:

;; The host's variables in `process-environment', so that terminals started
;; from Emacs connect to it, and the terminal `ide-companion-gemini' opens.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'ide-companion-options)

(declare-function make-term "term" (name program &optional startfile &rest switches))
(declare-function term-mode "term" ())
(declare-function term-char-mode "term" ())
(declare-function vterm "ext:vterm" (&optional arg))
(declare-function eat "ext:eat" (&optional program arg))
(defvar vterm-shell)
(defvar eat-buffer-name)

;;;; Terminal environment

(defun ide-companion--env-names ()
  "Names of the variables the host asked terminals to get."
  (mapcar #'car ide-companion--saved-env))

(defun ide-companion--environment-without-companion ()
  "`process-environment' without the variables this package set."
  (let ((names (ide-companion--env-names)))
    (cl-remove-if (lambda (entry)
                    (cl-some (lambda (name) (string-prefix-p (concat name "=") entry)) names))
                  process-environment)))

(defun ide-companion--apply-env (env)
  "Put ENV, a plist of variable keywords and strings, in `process-environment'.
Every terminal and shell started from now on inherits it, so `gemini' there
connects to this Emacs even when other editors share the folder."
  (ide-companion--restore-env)
  (while env
    (let ((name (substring (symbol-name (car env)) 1))
          (value (cadr env)))
      (when (stringp value)
        (push (cons name (getenv name)) ide-companion--saved-env)
        (setenv name value)))
    (setq env (cddr env))))

(defun ide-companion--restore-env ()
  "Undo `ide-companion--apply-env'."
  (let ((saved ide-companion--saved-env))
    (setq process-environment (ide-companion--environment-without-companion)
          ide-companion--saved-env nil)
    (dolist (entry saved)
      (when (cdr entry) (setenv (car entry) (cdr entry))))))

;;;; Terminals

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
    ('vterm
     (require 'vterm)
     (let ((vterm-shell command))
       (vterm name)))
    ('eat
     (require 'eat)
     (let ((eat-buffer-name name))
       (eat command t)))
    (_
     (require 'term)
     (let ((buffer (make-term (string-trim name "\\*" "\\*") shell-file-name nil shell-command-switch command)))
       (with-current-buffer buffer
         (term-mode)
         (term-char-mode))
       (pop-to-buffer buffer)
       buffer))))

(defun ide-companion--gemini-missing ()
  "Return why `ide-companion-gemini-command' cannot run, or nil."
  (let ((program (car (split-string-and-unquote ide-companion-gemini-command))))
    (unless (and program (executable-find program))
      (format "`%s' is not on `exec-path'; install Gemini CLI (npm install -g @google/gemini-cli) or set `ide-companion-gemini-command'"
              (or program ide-companion-gemini-command)))))

(provide 'ide-companion-terminal)
;;; ide-companion-terminal.el ends here
