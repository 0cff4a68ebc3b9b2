;;; ide-companion.el --- Gemini CLI's IDE mode: context, diffs and terminals  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The ide-companion authors

;; Author: The ide-companion authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: tools, convenience, processes
;; SPDX-License-Identifier: Apache-2.0

;; This file is not part of GNU Emacs.

;;; Commentary:

;; `ide-companion-mode' connects Emacs to Gemini CLI's IDE mode.  With the
;; mode on, a `gemini' started in a terminal inside this Emacs (vterm, eat,
;; term, ansi-term or shell; `M-x ide-companion-gemini' opens one) shows
;; "Connected to Emacs" in `/ide status' and:
;;
;; - sees what you work on: the files you visit, in the order you focused
;;   them, the line and column of point and the text of the active region;
;; - shows every edit it proposes as a diff (ediff by default): edit the
;;   proposal if you like, then `C-c C-c' (or `C-x C-s') accepts it and
;;   `C-c C-k' rejects it; the file's buffer reverts once Gemini CLI wrote it,
;;   unless it has unsaved changes, which are never touched;
;; - can open a file at a line, list your open buffers, read the region,
;;   flymake and flycheck diagnostics, and save or check unsaved buffers.
;;
;; Emacs runs a small Node.js host (the bundled `ide-companion bridge', in
;; host/) and talks to it in JSON lines over pipes; the host serves Gemini
;; CLI.  It needs Node.js 20 or newer on `exec-path'.  `M-x
;; ide-companion-doctor' says what is missing.
;;
;;   (use-package ide-companion
;;     :load-path "~/.emacs.d/site-lisp/ide-companion"
;;     :config (ide-companion-mode 1))

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(declare-function project-root "project" (project))
(declare-function project-roots "project" (project))
(declare-function projectile-project-root "ext:projectile" (&optional dir))
(declare-function ediff-buffers "ediff" (buffer-a buffer-b &optional startup-hooks job-name))
(declare-function ediff-setup-windows-plain "ediff-wind" (buffer-a buffer-b buffer-c control-buffer))
(declare-function ediff-really-quit "ediff-util" (reverse-default-keep-variants))
(declare-function ediff-quit "ediff-util" (reverse-default-keep-variants))
(declare-function json-read-from-string "json" (string))
(declare-function make-term "term" (name program &optional startfile &rest switches))
(declare-function term-mode "term" ())
(declare-function term-char-mode "term" ())
(declare-function vterm "ext:vterm" (&optional arg))
(declare-function eat "ext:eat" (&optional program arg))
(declare-function flymake-diagnostics "flymake" (&optional beg end))
(declare-function flymake-diagnostic-beg "flymake" (diag))
(declare-function flymake-diagnostic-end "flymake" (diag))
(declare-function flymake-diagnostic-type "flymake" (diag))
(declare-function flymake-diagnostic-text "flymake" (diag))
(declare-function flymake-diagnostic-backend "flymake" (diag))
(declare-function flycheck-error-line "ext:flycheck" (err))
(declare-function flycheck-error-column "ext:flycheck" (err))
(declare-function flycheck-error-end-line "ext:flycheck" (err))
(declare-function flycheck-error-end-column "ext:flycheck" (err))
(declare-function flycheck-error-level "ext:flycheck" (err))
(declare-function flycheck-error-message "ext:flycheck" (err))
(declare-function flycheck-error-checker "ext:flycheck" (err))
(declare-function flycheck-error-id "ext:flycheck" (err))

(defvar json-object-type)
(defvar json-array-type)
(defvar json-key-type)
(defvar json-null)
(defvar json-false)
(defvar ediff-window-setup-function)
(defvar ediff-split-window-function)
(defvar ediff-buffer-B)
(defvar vterm-shell)
(defvar eat-buffer-name)
(defvar flymake-mode)
(defvar flycheck-mode)
(defvar flycheck-current-errors)
(defvar trusted-content)

;;;; Options

(defgroup ide-companion nil
  "Gemini CLI's IDE mode: context, diffs and terminals tied to this Emacs."
  :group 'tools
  :prefix "ide-companion-")

(defcustom ide-companion-node-program "node"
  "The Node.js executable that runs the companion host (version 20 or newer)."
  :type 'string)

(defcustom ide-companion-host-file nil
  "The companion host script, or nil for the one shipped with this package.
nil looks for host/ide-companion-bridge.mjs beside this file (an
installed copy), then for ../jsonlines/host/ide-companion-bridge.mjs
\(a checkout of the ide-companion repository)."
  :type '(choice (const :tag "The bundled host" nil) file))

(defcustom ide-companion-gemini-command "gemini"
  "Shell command line that `ide-companion-gemini' runs in a terminal."
  :type 'string)

(defcustom ide-companion-terminal 'auto
  "The terminal `ide-companion-gemini' opens.
`auto' takes vterm when it is installed, else eat, else term."
  :type '(choice (const :tag "vterm, else eat, else term" auto)
                 (const vterm) (const eat) (const term)))

(defcustom ide-companion-cursor-delay 0.02
  "Seconds of idleness after commands before point and region are reported.
Commands in a row are coalesced into one report, so typing and
scrolling never wait for the companion.  Takes effect when
`ide-companion-mode' is turned on."
  :type 'number)

(defcustom ide-companion-diff-layout 'ediff
  "How a proposed edit is shown.
`ediff' runs `ediff-buffers' on the file's text and the proposal;
`side-by-side' shows both in two windows without ediff."
  :type '(choice (const ediff) (const side-by-side)))

(defcustom ide-companion-agents nil
  "The terminal agents served, a list of agent names.
The names: \"gemini\", \"qwen\", \"claude\", \"copilot\", and \"opencode\",
served through Claude Code's face.  Gemini CLI is always served.  nil:
$IDE_COMPANION_AGENTS, else all (Copilot CLI when the user has it).
Takes effect at the next start; `ide-companion-doctor' shows them."
  :type '(repeat (choice (const "gemini") (const "qwen") (const "claude")
                         (const "copilot") (const "opencode"))))

(defcustom ide-companion-ready-hook nil
  "Hook run when the companion host is listening and Gemini CLI can connect."
  :type 'hook)

;;;; State

(defconst ide-companion--directory
  (file-name-directory (or load-file-name (bound-and-true-p byte-compile-current-file) buffer-file-name default-directory))
  "The directory this file was loaded from.")

(defconst ide-companion--protocol-version 1
  "The version of docs/editor-protocol.md this package speaks.")

(defconst ide-companion--min-node-major 20
  "The oldest Node.js major version the host runs on.")

(defconst ide-companion--capabilities
  ["openFile" "getOpenEditors" "getSelection" "getDiagnostics" "checkDocumentDirty" "saveDocument" "reload"]
  "The optional actions this package answers (`reload' is no tool: diffs').")

(defvar ide-companion--process nil
  "The running host process, or nil.")

(defvar ide-companion--partial nil
  "Chunks of the host's current, unfinished output line, newest first.")

(defvar ide-companion--ready nil
  "The host's `ready' message as a plist once it listens, else nil.")

(defvar ide-companion--sessions 0
  "How many CLI sessions are connected.")

(defvar ide-companion--session-agents nil
  "The agents of the connected sessions (\"Claude Code\", ...).")

(defvar ide-companion--last-error nil
  "Why the companion last failed to start or stopped, as a sentence.")

(defvar ide-companion--stopping nil
  "Non-nil while `ide-companion-stop' ends the host on purpose.")

(defvar ide-companion--saved-env nil
  "Alist of (NAME . VALUE-BEFORE) for the variables set in `process-environment'.")

(defvar ide-companion--roots nil
  "The workspace roots reported to the companion.")

(defvar ide-companion--focused nil
  "The file buffer that last had focus.")

(defvar ide-companion--moved nil
  "Non-nil when a command ran since point was last reported.")

(defvar ide-companion--idle-timer nil
  "The idle timer that reports point after commands, while the mode is on.")

(defvar ide-companion--diffs (make-hash-table :test #'equal)
  "Open diffs by diff id.")

(defvar ide-companion--accepted (make-hash-table :test #'equal)
  "Accepted texts their files may not hold yet: path -> TEXT.
Kept only for a host that dies with the accept in its pipe, or before the
CLI wrote it: the companion's own memory of it dies with the host.  Dropped
when the host says the file holds it (the `reload' action) or a new
proposal for the file opens; shown again at the host's death unless the
file holds it (docs/reliability.md).")

(defvar ide-companion--words
  '(:acceptUnsent "the companion is not running: the accept reached no one; {file} is kept"
    :keptAtDeath "; kept: {files}")
  "The words for when the host is gone (it cannot send them then).
As the host gave them in `ready' (diffWords.ts hostGoneWords); these few
stand in for a host too old to send them.")

(defvar ide-companion--gemini-buffer nil
  "The terminal buffer running Gemini CLI, opened by `ide-companion-gemini'.")

(defvar-local ide-companion--path nil
  "The file name last reported for this buffer.")

(defvar-local ide-companion--path-json nil
  "`ide-companion--path' as a JSON string, for the cursor reports.")

(defvar-local ide-companion--root nil
  "This buffer's workspace root once computed.")

(defvar-local ide-companion--diff-id nil
  "In a diff's buffers, the id of the diff they show.")

(cl-defstruct (ide-companion--diff (:constructor ide-companion--make-diff))
  "A diff proposed by an agent (AGENT: \"Claude Code\"), shown in two buffers."
  id path new-content original proposal control window-config settled agent)

;;;; Host process and wire

(defun ide-companion--log (format-string &rest args)
  "Append FORMAT-STRING formatted with ARGS to the log buffer."
  (with-current-buffer (get-buffer-create " *ide-companion-log*")
    (goto-char (point-max))
    (insert (format-time-string "%H:%M:%S.%3N ") (apply #'format format-string args) "\n")))

(defun ide-companion--running-p ()
  "Return non-nil when the host process is alive."
  (and ide-companion--process (process-live-p ide-companion--process)))

(defun ide-companion--send-line (line)
  "Send LINE, one JSON object and a newline, to the host if it is running.
Return non-nil when it was sent.  A host that died and is not reaped yet
fails the write (EPIPE): logged, as its sentinel deals with the death."
  (when (ide-companion--running-p)
    (condition-case err
        (progn (process-send-string ide-companion--process line) t)
      (error (ide-companion--log "cannot send to the host: %s" (error-message-string err))
             nil))))

(defun ide-companion--json-string (string)
  "STRING as a JSON string literal.
Serialized inside an array: Emacs 27's `json-serialize' takes no bare string."
  (let ((array (json-serialize (vector string))))
    (substring array 1 -1)))

(defun ide-companion--send (message)
  "Send MESSAGE, a plist, to the host as one JSON line.
Return non-nil when it was sent."
  (ide-companion--send-line (concat (json-serialize message) "\n")))

(defun ide-companion--host-candidates ()
  "The host scripts to try, each (FILE . WHERE-IT-COMES-FROM), in order."
  (let ((exe (executable-find "ide-companion")))
    (append
     (list (cons (expand-file-name "host/ide-companion-bridge.mjs" ide-companion--directory) "the package's own")
           (cons (expand-file-name "../jsonlines/host/ide-companion-bridge.mjs" ide-companion--directory) "the repository's"))
     ;; npm links the command to <package>/packages/cli/bin/ide-companion.js.
     (and exe (list (cons (expand-file-name "../../../editors/jsonlines/host/ide-companion-bridge.mjs"
                                            (file-name-directory (file-truename exe)))
                          "the ide-companion package on PATH"))))))

(defun ide-companion--host-found ()
  "Return (FILE . WHERE-IT-COMES-FROM) of the host script to run, or nil."
  (if ide-companion-host-file
      (let ((file (expand-file-name ide-companion-host-file)))
        (and (file-readable-p file) (cons file "`ide-companion-host-file'")))
    (cl-find-if (lambda (c) (file-readable-p (car c))) (ide-companion--host-candidates))))

(defun ide-companion--host-file ()
  "Return the host script to run, or nil when there is none."
  (car (ide-companion--host-found)))

(defun ide-companion--node-version ()
  "Return (MAJOR . VERSION-STRING) of `ide-companion-node-program', or nil."
  (let ((node (executable-find ide-companion-node-program)))
    (when node
      (with-temp-buffer
        (when (eq 0 (ignore-errors (call-process node nil t nil "--version")))
          (goto-char (point-min))
          (when (looking-at "v\\([0-9]+\\)\\.[0-9.]+")
            (cons (string-to-number (match-string 1)) (match-string 0))))))))

(defun ide-companion--start-problem ()
  "Return why the host cannot start, as a sentence, or nil when it can."
  (let ((node (executable-find ide-companion-node-program))
        (version (ide-companion--node-version)))
    (cond
     ((not (fboundp 'json-serialize))
      "This Emacs was built without native JSON (libjansson), which ide-companion needs")
     ((not node)
      (format "Node.js was not found: `%s' is not on `exec-path'; install Node.js %d or newer, or set `ide-companion-node-program'"
              ide-companion-node-program ide-companion--min-node-major))
     ((not version)
      (format "`%s --version' did not print a Node.js version" node))
     ((< (car version) ide-companion--min-node-major)
      (format "Node.js %s is too old (%s); the companion host needs Node.js %d or newer"
              (cdr version) node ide-companion--min-node-major))
     ((not (ide-companion--host-file))
      (if ide-companion-host-file
          (format "The host file `%s' (`ide-companion-host-file') cannot be read" ide-companion-host-file)
        (format "The bundled host is missing from %s (expected host/ide-companion-bridge.mjs): run `npm install' in the repository, or install the ide-companion package (npm install -g) so that its host is found"
                ide-companion--directory))))))

(defun ide-companion--start ()
  "Start the host unless it is running; return nil or why it cannot start."
  (if (ide-companion--running-p)
      nil
    (let ((problem (ide-companion--start-problem)))
      (if problem
          (progn (setq ide-companion--last-error problem) problem)
        (ide-companion--launch)
        nil))))

(defun ide-companion--launch ()
  "Run the host and send it `hello'."
  (setq ide-companion--partial nil
        ide-companion--ready nil
        ide-companion--sessions 0
        ide-companion--session-agents nil
        ide-companion--last-error nil
        ide-companion--focused nil
        ide-companion--roots (ide-companion--initial-roots))
  (let* ((stderr (get-buffer-create " *ide-companion-host*"))
         ;; A remote `default-directory' would start the host on that machine.
         (default-directory (expand-file-name "~/"))
         ;; The host must not inherit the variables that tie terminals to it.
         (process-environment (ide-companion--environment-without-companion))
         (process (make-process
                   :name "ide-companion"
                   :command (list (executable-find ide-companion-node-program) (ide-companion--host-file)
                                  "--name" "emacs" "--display-name" "Emacs")
                   :connection-type 'pipe
                   :coding 'utf-8-unix
                   :noquery t
                   :stderr stderr
                   :filter #'ide-companion--filter
                   :sentinel #'ide-companion--sentinel)))
    (let ((stderr-process (get-buffer-process stderr)))
      (when stderr-process (set-process-query-on-exit-flag stderr-process nil)))
    (setq ide-companion--process process)
    (ide-companion--log "host started (pid %s)" (process-id process))
    (let ((hello (list :type "hello" :protocol ide-companion--protocol-version
                       :ide (list :name "emacs" :displayName "Emacs")
                       :pid (emacs-pid)
                       :roots (vconcat ide-companion--roots)
                       :capabilities ide-companion--capabilities))
          (trusted (ide-companion--trusted)))
      (when trusted (setq hello (append hello (list :trusted trusted))))
      (when ide-companion-agents (setq hello (append hello (list :agents (vconcat ide-companion-agents)))))
      (ide-companion--send hello))))

(defun ide-companion--filter (process chunk)
  "Split CHUNK, output of the host PROCESS, into lines and handle each."
  (when (eq process ide-companion--process)
    (let ((start 0) (lines nil) newline)
      ;; Chunks are kept in a list until a newline arrives: concatenating on
      ;; every 4 KiB read would be quadratic for a 32 MiB diff.
      (while (setq newline (string-match-p "\n" chunk start))
        (push (apply #'concat (nreverse (cons (substring chunk start newline) ide-companion--partial))) lines)
        (setq ide-companion--partial nil
              start (1+ newline)))
      (when (< start (length chunk))
        (push (substring chunk start) ide-companion--partial))
      (dolist (line (nreverse lines))
        (ide-companion--handle-line line)))))

(defun ide-companion--parse (line)
  "Parse LINE, one JSON object, into a plist."
  (condition-case err
      (json-parse-string line :object-type 'plist :array-type 'list
                         :null-object nil :false-object :false)
    (json-parse-error
     ;; Emacs's native parser refuses \u0000, which a file's text may hold;
     ;; json.el reads it (slowly, so only then).
     (if (not (string-match-p "\\\\u0000" line))
         (signal (car err) (cdr err))
       (require 'json)
       (let ((json-object-type 'plist) (json-array-type 'list) (json-key-type 'keyword)
             (json-null nil) (json-false :false))
         (json-read-from-string line))))))

(defun ide-companion--handle-line (line)
  "Handle LINE, one JSON message from the host."
  (unless (string-empty-p line)
    (condition-case err
        (ide-companion--handle-message (ide-companion--parse line))
      (error (ide-companion--log "cannot handle a host line: %s" (error-message-string err))))))

(defun ide-companion--handle-message (message)
  "Act on MESSAGE, a plist from the host."
  (let ((type (plist-get message :type)))
    (cond
     ((equal type "ready") (ide-companion--on-ready message))
     ((equal type "sessions") (ide-companion--on-sessions (plist-get message :count) (plist-get message :agents)))
     ((equal type "request")
      ;; Out of the filter: answering may show windows or save buffers.
      (run-at-time 0 nil #'ide-companion--answer
                   (plist-get message :id) (plist-get message :action) (plist-get message :params)))
     ((equal type "error")
      (let ((text (plist-get message :message)))
        (ide-companion--log "host error: %s" text)
        (if ide-companion--ready
            (message "ide-companion: %s" text)
          (setq ide-companion--last-error (format "The companion host could not start: %s" text))
          (message "ide-companion: %s" ide-companion--last-error))))
     (t (ide-companion--log "unknown host message type %S" type)))))

(defun ide-companion--on-ready (message)
  "The host listens: keep MESSAGE, tie terminals to it, report the editor state."
  (setq ide-companion--ready message)
  (let ((words (plist-get message :words)))
    (when (and (stringp (plist-get words :acceptUnsent)) (stringp (plist-get words :keptAtDeath)))
      (setq ide-companion--words words)))
  (ide-companion--apply-env (plist-get message :env))
  (ide-companion--log "ready on port %s" (plist-get message :port))
  (ide-companion--report-open-buffers)
  (ide-companion--check-focus t)
  (force-mode-line-update t)
  (run-hooks 'ide-companion-ready-hook))

(defun ide-companion--on-sessions (count agents)
  "COUNT CLI sessions are connected now, of AGENTS (a vector of names)."
  (let ((before ide-companion--session-agents)
        (now (delete-dups (append agents nil))))
    (setq ide-companion--sessions (or count 0)
          ide-companion--session-agents now)
    (dolist (agent now)
      (unless (member agent before) (message "ide-companion: %s connected" agent)))
    (dolist (agent before)
      (unless (member agent now) (message "ide-companion: %s disconnected" agent)))
    (force-mode-line-update t)))

(defun ide-companion-send-to-agent (start end)
  "Send the file, or the lines of the region START..END, to Claude Code.
It lands in Claude Code's prompt as an @-mention (its at_mentioned);
Gemini CLI and Qwen Code have no such channel."
  (interactive (if (use-region-p) (list (region-beginning) (region-end)) (list nil nil)))
  (cond ((not buffer-file-name) (user-error "This buffer visits no file"))
        ((not (member "Claude Code" ide-companion--session-agents))
         (user-error "No Claude Code is connected (only Claude Code takes what you send; run `claude --ide')"))
        (t (ide-companion--send
            (append (list :type "mention" :path (file-truename buffer-file-name))
                    (when start
                      (list :startLine (line-number-at-pos start)
                            :endLine (line-number-at-pos (if (and (> end start) (= (save-excursion (goto-char end) (current-column)) 0)) (1- end) end)))))))))

(defvar ide-companion-mode)

(defvar ide-companion--deaths nil
  "When running hosts died unasked (`float-time'), newest first.")

(defconst ide-companion--max-deaths 5
  "A host dying this often within `ide-companion--death-window' is left stopped.")

(defconst ide-companion--death-window 180
  "Seconds over which deaths of the host are counted.")

(defun ide-companion--sentinel (process event)
  "Clean up after the host PROCESS ended with EVENT."
  (when (and (eq process ide-companion--process) (not (process-live-p process)))
    (ide-companion--log "host ended: %s" (string-trim event))
    (cond
     (ide-companion--stopping (ide-companion--forget-host))
     (ide-companion--ready (ide-companion--died (string-trim event)))
     (t
      (setq ide-companion--last-error
            (or ide-companion--last-error
                (format "The companion host exited (%s); see the buffer \" *ide-companion-host*\""
                        (string-trim event))))
      (message "ide-companion: %s; M-x ide-companion-start restarts it" ide-companion--last-error)
      (ide-companion--forget-host)))))

(defun ide-companion--died (how)
  "A running host died unasked (HOW, as the sentinel said it).
Its discovery file and socket folder go now (it could not remove them, and
the discovery file names this Emacs, which lives on); the proposals stay for
the user; a new host starts at once, unless it keeps dying.  One line says
what happened, never the host's raw log."
  (let* ((ready ide-companion--ready)
         (kept (append (ide-companion--keep-all-diffs) (ide-companion--keep-accepted)))
         (now (float-time)))
    (ide-companion--forget-host)
    (ide-companion--remove-files-of ready)
    (setq ide-companion--deaths
          (cons now (cl-remove-if-not (lambda (time) (< (- now time) ide-companion--death-window))
                                ide-companion--deaths)))
    (let ((proposals (if kept (ide-companion--put-words :keptAtDeath "{files}" (string-join kept ", ")) ""))
          (deaths (length ide-companion--deaths)))
      (if (>= deaths ide-companion--max-deaths)
          (progn
            (setq ide-companion--last-error
                  (format "the companion host stopped %d times in %d minutes (%s); it is not restarted"
                          deaths (/ ide-companion--death-window 60) how))
            (message "ide-companion: %s%s. M-x ide-companion-start tries again" ide-companion--last-error proposals))
        (setq ide-companion--last-error (format "the companion host stopped (%s) and was restarted" how))
        (message "ide-companion: %s%s" ide-companion--last-error proposals)
        ;; Back off as it keeps dying: 0, 0.5, 1, 2 s.
        (run-at-time (if (= deaths 1) 0 (* 0.25 (expt 2 (1- deaths)))) nil
                     (lambda () (when ide-companion-mode (ide-companion--start))))))))

(defun ide-companion--remove-files-of (ready)
  "Delete the discovery file and socket folder that READY named.
The folder only in its own shape: TMP/ide-companion-UID/PID-PORT."
  (let ((file (plist-get ready :discoveryFile))
        (socket (plist-get ready :socketPath)))
    (when (and (stringp file) (string-match-p "\\`gemini-ide-server-[0-9]+-[0-9]+\\.json\\'" (file-name-nondirectory file)))
      (ignore-errors (delete-file file)))
    (when (stringp socket)
      (let ((dir (directory-file-name (file-name-directory socket))))
        (when (and (string-match-p "\\`[0-9]+-[0-9]+\\'" (file-name-nondirectory dir))
                   (string-match-p "\\`ide-companion-[0-9]+\\'" (file-name-nondirectory (directory-file-name (file-name-directory dir)))))
          (ignore-errors (delete-directory dir t)))))))

(defun ide-companion--forget-host ()
  "Reset the state tied to a host that is gone."
  (setq ide-companion--process nil
        ide-companion--ready nil
        ide-companion--sessions 0
        ide-companion--session-agents nil)
  (ide-companion--restore-env)
  (ide-companion--close-all-diffs)
  (force-mode-line-update t))

(defun ide-companion--stop ()
  "End the host (it deletes its discovery file when its stdin closes)."
  (let ((process ide-companion--process))
    (when (and process (process-live-p process))
      (let ((ide-companion--stopping t)
            (discovery (plist-get ide-companion--ready :discoveryFile))
            (deadline (+ (float-time) 3)))
        (ignore-errors (process-send-eof process))
        ;; Its discovery file gone is what matters: when Emacs ends on a
        ;; signal, the host's exit may not be noticed before the deadline.
        (while (and (process-live-p process) (< (float-time) deadline)
                    (or (not discovery) (file-exists-p discovery)))
          (accept-process-output process 0.05))
        (when (process-live-p process) (delete-process process))
        (ide-companion--forget-host)))
    (setq ide-companion--process nil)
    (ide-companion--forget-host)))

(defun ide-companion--wait-ready (seconds)
  "Wait up to SECONDS for the host to be ready; return non-nil when it is."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not ide-companion--ready) (ide-companion--running-p) (< (float-time) deadline))
      (accept-process-output ide-companion--process 0.05))
    ide-companion--ready))

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

;;;; Editor state

(defun ide-companion--file-buffer-p (buffer)
  "Return the file BUFFER visits if it is a local file that exists, else nil."
  (let ((file (buffer-file-name buffer)))
    (and file
         (not (file-remote-p file))
         (not (buffer-local-value 'ide-companion--diff-id buffer))
         (file-exists-p file)
         file)))

(defun ide-companion--project-root (directory)
  "Return the project root of DIRECTORY (projectile, then project.el), or nil."
  (let ((root (or (and (fboundp 'projectile-project-root)
                       (ignore-errors (projectile-project-root directory)))
                  (and (require 'project nil t)
                       (let ((project (ignore-errors (project-current nil directory))))
                         (and project
                              (if (fboundp 'project-root)
                                  (project-root project)
                                (car (project-roots project)))))))))
    (and root (directory-file-name (expand-file-name root)))))

(defun ide-companion--initial-roots ()
  "The roots reported at start: the project of `default-directory', or itself."
  (let ((directory (expand-file-name (or (and (not (file-remote-p default-directory)) default-directory) "~/"))))
    (list (or (ide-companion--project-root directory) (directory-file-name directory)))))

(defun ide-companion--note-root (buffer)
  "Add the project root of the file in BUFFER to the roots, telling the host."
  (with-current-buffer buffer
    (unless ide-companion--root
      (setq ide-companion--root
            (or (ide-companion--project-root default-directory) 'none)))
    (when (and (stringp ide-companion--root) (not (member ide-companion--root ide-companion--roots)))
      (setq ide-companion--roots (append ide-companion--roots (list ide-companion--root)))
      (ide-companion--send (list :type "roots" :roots (vconcat ide-companion--roots))))))

(defun ide-companion--trusted ()
  "Workspace trust to report: t, :false, or nil for not reported.
Emacs 30's `trusted-content' is the only trust Emacs knows; it is
reported only when the user set it (nil, its default, says nothing
about trust), as t when it is :all or covers every root."
  (when (and (boundp 'trusted-content) trusted-content)
    (if (or (eq trusted-content :all)
            (cl-every (lambda (root)
                        (let ((dir (file-name-as-directory root)))
                          (cl-some (lambda (entry)
                                     (and (stringp entry)
                                          (string-prefix-p (expand-file-name entry) dir)
                                          (or (string-suffix-p "/" entry)
                                              (equal (expand-file-name entry) root))))
                                   trusted-content)))
                      ide-companion--roots))
        t
      :false)))

(defvar-local ide-companion--line-cache nil
  "(POSITION . LINE): a line start and its line number, or nil.
Counting lines from the start of a big buffer on every report would cost
more than all the rest; counting from the last report costs what the
cursor moved.  A change before POSITION drops the cache.")

(defun ide-companion--drop-line-cache (beg _end _length)
  "Forget the line cache when a change at BEG precedes its position."
  (when (and ide-companion--line-cache (< beg (car ide-companion--line-cache)))
    (setq ide-companion--line-cache nil)))

(defun ide-companion--line-number (bol)
  "The 1-based line number of BOL, a line start in the widened buffer."
  (let* ((cache ide-companion--line-cache)
         (line (cond ((and cache (= bol (car cache))) (cdr cache))
                     ((or (null cache) (> (car cache) (point-max)))
                      (1+ (count-lines (point-min) bol)))
                     ((>= bol (car cache)) (+ (cdr cache) (count-lines (car cache) bol)))
                     (t (- (cdr cache) (count-lines bol (car cache)))))))
    (setq ide-companion--line-cache (cons bol line))
    line))

(defun ide-companion--position (&optional position)
  "POSITION (default point) as a plist of 1-based :line and :character."
  (if (and (null position) (not (buffer-narrowed-p)))
      ;; The common case, once per report: no excursion needed.
      (let ((bol (line-beginning-position)))
        (list :line (ide-companion--line-number bol) :character (1+ (- (point) bol))))
    (save-excursion
      (save-restriction
        (widen)
        (goto-char (or position (point)))
        (let ((bol (line-beginning-position)))
          (list :line (ide-companion--line-number bol)
                :character (1+ (- (point) bol))))))))

(defvar-local ide-companion--anchor-cache nil
  "(MARK TICK . POSITION): the region's other end and its position.
Extending a region moves point only: its mark's line is not counted again.")

(defun ide-companion--anchor ()
  "The active region's other end (mark) as a position plist, or nil.
The host reads the region's text with `selectedText' when it needs it."
  (when (use-region-p)
    (let ((mark (mark t)) (tick (buffer-chars-modified-tick)) (cache ide-companion--anchor-cache))
      (if (and cache (eq (car cache) mark) (eq (cadr cache) tick))
          (cddr cache)
        (let ((line-cache ide-companion--line-cache)
              (position (ide-companion--position mark)))
          ;; Point's line cache stays where point is.
          (setq ide-companion--line-cache line-cache
                ide-companion--anchor-cache (cons mark (cons tick position)))
          position)))))

(defun ide-companion--focus-event (buffer)
  "The `focus' event for file BUFFER."
  (with-current-buffer buffer
    (let ((anchor (ide-companion--anchor)))
      (append (list :type "focus" :path ide-companion--path :cursor (ide-companion--position))
              (and anchor (list :anchor anchor))))))

(defun ide-companion--check-focus (&optional force)
  "Report focus when another file buffer is in the selected window.
With FORCE, report it even when it is the same buffer."
  (when ide-companion--ready
    (let* ((buffer (window-buffer (selected-window)))
           (file (and (or force (not (eq buffer ide-companion--focused)))
                      (ide-companion--file-buffer-p buffer))))
      (when file
        (setq ide-companion--focused buffer)
        (with-current-buffer buffer
          (setq ide-companion--path file
                ide-companion--path-json (ide-companion--json-string file))
          (add-hook 'after-change-functions #'ide-companion--drop-line-cache nil t))
        (ide-companion--note-root buffer)
        (ide-companion--send (ide-companion--focus-event buffer))))))

(defun ide-companion--report-open-buffers ()
  "Report every file buffer as open, with the time it was last shown."
  (dolist (buffer (buffer-list))
    (let ((file (ide-companion--file-buffer-p buffer)))
      (when file
        (with-current-buffer buffer
          (setq ide-companion--path file)
          (ide-companion--send
           (append (list :type "open" :path file)
                   (and buffer-display-time
                        (list :timestamp (truncate (* 1000 (float-time buffer-display-time))))))))))))

(defun ide-companion--flush-cursor ()
  "Report point and the region's other end in the focused file.
The host drops repeats and reads the region's text when it needs it."
  (when ide-companion--ready
    (let ((buffer (window-buffer (selected-window))))
      (if (not (eq buffer ide-companion--focused))
          (ide-companion--check-focus)
        (with-current-buffer buffer
          (let ((cursor (ide-companion--position))
                (anchor (ide-companion--anchor)))
            ;; Written without `json-serialize': it costs more than the rest.
            (ide-companion--send-line
             (format "{\"type\":\"cursor\",\"path\":%s,\"cursor\":{\"line\":%d,\"character\":%d}%s}\n"
                     ide-companion--path-json (plist-get cursor :line) (plist-get cursor :character)
                     (if anchor
                         (format ",\"anchor\":{\"line\":%d,\"character\":%d}"
                                 (plist-get anchor :line) (plist-get anchor :character))
                       "")))))))))

(defun ide-companion--selected-text (params)
  "Answer selectedText: the focused buffer's region text, at most PARAMS' maxChars."
  (let ((max (plist-get params :maxChars))
        (buffer ide-companion--focused))
    (unless (and (natnump max) (> max 0)) (error "The maxChars parameter must be a positive number"))
    (list :text
          (if (not (buffer-live-p buffer))
              :null
            (with-current-buffer buffer
              (if (not (use-region-p))
                  :null
                (let ((start (region-beginning)))
                  (if (= start (region-end))
                      :null
                    (buffer-substring-no-properties start (min (region-end) (+ start max)))))))))))

;;;; Hooks

(defun ide-companion--post-command ()
  "Note that point may have moved: the only work done after each command.
The idle timer makes the report once the commands stop, however many ran."
  (setq ide-companion--moved t))

(defun ide-companion--on-idle ()
  "Emacs became idle: report point if a command ran since the last report."
  (when ide-companion--moved
    (setq ide-companion--moved nil)
    (ide-companion--flush-cursor)))

(defun ide-companion--window-change (&optional _frame)
  "A window's buffer or the selected window changed."
  (ide-companion--check-focus))

(defun ide-companion--focus-change ()
  "This Emacs's frames gained or lost focus; report focus when gained."
  (when (cl-some #'frame-focus-state (frame-list))
    (ide-companion--check-focus t)))

(defun ide-companion--on-find-file ()
  "A buffer started visiting a file."
  (let ((file (and ide-companion--ready (ide-companion--file-buffer-p (current-buffer)))))
    (when file
      (setq ide-companion--path file)
      (ide-companion--send (list :type "open" :path file)))))

(defun ide-companion--on-kill-buffer ()
  "A buffer is being killed."
  (when (and ide-companion--ready ide-companion--path (not ide-companion--diff-id))
    (when (eq (current-buffer) ide-companion--focused) (setq ide-companion--focused nil))
    (ide-companion--send (list :type "close" :path ide-companion--path))))

(defun ide-companion--on-save ()
  "A buffer was written: its file exists on disk now."
  (let ((file (and ide-companion--ready (ide-companion--file-buffer-p (current-buffer)))))
    (when file
      (unless (or (null ide-companion--path) (equal ide-companion--path file))
        (ide-companion--send (list :type "rename" :from ide-companion--path :to file)))
      (setq ide-companion--path file)
      (ide-companion--send (list :type "saved" :path file)))))

(defun ide-companion--on-rename ()
  "A buffer's visited file name changed."
  (when (and ide-companion--ready ide-companion--path buffer-file-name
             (not (equal ide-companion--path buffer-file-name)))
    (ide-companion--send (list :type "rename" :from ide-companion--path :to buffer-file-name))
    (setq ide-companion--path buffer-file-name)))

(defconst ide-companion--hooks
  '((post-command-hook . ide-companion--post-command)
    (window-buffer-change-functions . ide-companion--window-change)
    (window-selection-change-functions . ide-companion--window-change)
    (find-file-hook . ide-companion--on-find-file)
    (kill-buffer-hook . ide-companion--on-kill-buffer)
    (after-save-hook . ide-companion--on-save)
    (after-set-visited-file-name-hook . ide-companion--on-rename)
    (kill-emacs-hook . ide-companion--stop))
  "The global hooks `ide-companion-mode' adds.")

;;;; Diffs

(defun ide-companion--diff-buffer-name (role path)
  "A buffer name for the ROLE side of a diff of PATH."
  (generate-new-buffer-name (format "*gemini %s: %s*" role (file-name-nondirectory path))))

(defun ide-companion--fill-diff-buffer (buffer text path)
  "Put TEXT, exactly, in BUFFER and set up a major mode for PATH."
  (with-current-buffer buffer
    (buffer-disable-undo)
    (let ((inhibit-read-only t)) (erase-buffer) (insert text))
    ;; The mode's hooks could start linters or servers on a scratch buffer.
    (let ((buffer-file-name path))
      (ignore-errors (delay-mode-hooks (set-auto-mode t))))
    (setq buffer-file-coding-system 'no-conversion)
    (set-buffer-modified-p nil)
    (goto-char (point-min))
    (buffer-enable-undo)))

(defun ide-companion--show-diff (params)
  "Show the diff in PARAMS (diffId, filePath, newContent, originalContent)."
  (let* ((id (plist-get params :diffId))
         (path (plist-get params :filePath))
         (new-content (plist-get params :newContent))
         (original-content (or (plist-get params :originalContent) ""))
         (old (gethash id ide-companion--diffs)))
    (unless (and (stringp id) (stringp path) (file-name-absolute-p path) (stringp new-content))
      (error "The showDiff request lacks diffId, an absolute filePath or newContent"))
    (when old (ide-companion--settle old) (ide-companion--teardown old))
    ;; This proposal stands instead; the companion shows a kept accept again
    ;; this way too, which must not come back twice.
    (remhash path ide-companion--accepted)
    (let ((diff (ide-companion--make-diff
                 :id id :path path :new-content new-content
                 :agent (let ((agent (plist-get params :agent))) (if (stringp agent) agent "Gemini CLI"))
                 :window-config (current-window-configuration)
                 :original (get-buffer-create (ide-companion--diff-buffer-name
                                               (if (plist-get params :originalContent) "original" "new file")
                                               path))
                 :proposal (get-buffer-create (ide-companion--diff-buffer-name "proposal" path)))))
      (ide-companion--fill-diff-buffer (ide-companion--diff-original diff) original-content path)
      (ide-companion--fill-diff-buffer (ide-companion--diff-proposal diff) new-content path)
      (with-current-buffer (ide-companion--diff-original diff)
        (setq ide-companion--diff-id id)
        (setq buffer-read-only t))
      (with-current-buffer (ide-companion--diff-proposal diff)
        (setq ide-companion--diff-id id)
        (ide-companion-proposal-mode 1)
        (add-hook 'kill-buffer-hook #'ide-companion--proposal-killed nil t))
      (puthash id diff ide-companion--diffs)
      (if (eq ide-companion-diff-layout 'ediff)
          (ide-companion--display-ediff diff)
        (ide-companion--display-side-by-side diff))
      ;; The companion's words (diffWords.ts); the buffer's state picks which.
      (let ((visiting (find-buffer-visiting path))
            (words (plist-get params :words)))
        (when (and (stringp (plist-get words :unsaved)) (stringp (plist-get words :proposed)))
          (if (and visiting (buffer-modified-p visiting))
              (display-warning 'ide-companion (plist-get words :unsaved))
            (message "%s" (plist-get words :proposed)))))
      :null)))

(defun ide-companion--display-side-by-side (diff)
  "Show DIFF's original and proposal side by side in the selected frame."
  (delete-other-windows)
  (switch-to-buffer (ide-companion--diff-original diff) nil t)
  (let ((right (split-window-right)))
    (set-window-buffer right (ide-companion--diff-proposal diff))
    (select-window right)))

(defun ide-companion--display-ediff (diff)
  "Show DIFF with `ediff-buffers', the proposal in ediff's buffer B."
  (require 'ediff)
  (let ((ediff-window-setup-function #'ediff-setup-windows-plain)
        (ediff-split-window-function #'split-window-horizontally))
    (ediff-buffers (ide-companion--diff-original diff) (ide-companion--diff-proposal diff)
                   (list (lambda ()
                           (setf (ide-companion--diff-control diff) (current-buffer))
                           ;; The cursor lands in the control panel: the keys the echo line names work there too.
                           (ide-companion-ediff-control-mode 1))))))

(defvar ide-companion-ediff-control-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'ide-companion-accept)
    (define-key map (kbd "C-c C-k") #'ide-companion-reject)
    (define-key map [remap ediff-quit] #'ide-companion-ediff-quit)
    map)
  "Keymap of `ide-companion-ediff-control-mode': accept, reject, decide on quit.")

(define-minor-mode ide-companion-ediff-control-mode
  "Minor mode of the ediff control panel of a proposed edit.
\[ide-companion-accept] accepts the proposal as edited, \[ide-companion-reject]
rejects it, and ediff's own quit asks whether to reject it: an ediff
session ended by its own `q' would leave the proposal neither accepted
nor rejected, and the agent waiting.

\{ide-companion-ediff-control-mode-map}"
  :lighter " Proposal"
  :keymap ide-companion-ediff-control-mode-map)

(defun ide-companion-ediff-quit ()
  "End the ediff session of a proposal: reject it, once the user agrees."
  (interactive)
  (let ((diff (ide-companion--current-diff)))
    (cond ((not diff) (call-interactively #'ediff-quit))
          ((y-or-n-p (format "C-c C-c accepts, n keeps it open.  Reject %s's proposal for %s? "
                             (ide-companion--diff-agent diff)
                             (file-name-nondirectory (ide-companion--diff-path diff))))
           (ide-companion--reject-diff diff))
          (t (message "The proposal stays open: C-c C-c accepts, C-c C-k rejects")))))

(defun ide-companion--settle (diff)
  "Mark DIFF decided; return nil when it already was."
  (unless (ide-companion--diff-settled diff)
    (setf (ide-companion--diff-settled diff) t)
    (remhash (ide-companion--diff-id diff) ide-companion--diffs)
    t))

(defun ide-companion--teardown (diff)
  "Close DIFF's ediff session and buffers and restore the windows."
  (let ((control (ide-companion--diff-control diff)))
    (when (buffer-live-p control)
      (with-current-buffer control
        (ignore-errors (ediff-really-quit nil)))))
  (dolist (buffer (list (ide-companion--diff-proposal diff) (ide-companion--diff-original diff)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer (set-buffer-modified-p nil))
      (kill-buffer buffer)))
  (let ((config (ide-companion--diff-window-config diff)))
    (when (and config (frame-live-p (window-configuration-frame config)))
      (set-window-configuration config))))

(defun ide-companion--proposal-text (diff)
  "The text of DIFF's proposal buffer as it stands."
  (with-current-buffer (ide-companion--diff-proposal diff)
    (save-restriction
      (widen)
      (buffer-substring-no-properties (point-min) (point-max)))))

(defun ide-companion--proposal-killed ()
  "The proposal buffer is being killed by the user: reject its diff."
  (let ((diff (gethash ide-companion--diff-id ide-companion--diffs)))
    (when (and diff (ide-companion--settle diff))
      (ide-companion--send (list :type "diffRejected" :diffId (ide-companion--diff-id diff)))
      (message "ide-companion: rejected the changes to %s" (file-name-nondirectory (ide-companion--diff-path diff)))
      ;; The buffer dies anyway; the rest goes after this hook.
      (run-at-time 0 nil #'ide-companion--teardown diff))))

(defun ide-companion--accept-diff (diff)
  "Accept DIFF with the proposal as the user left it.
The text is remembered until the file holds it: the host may die before it
passed the accept on.  When the accept cannot be sent at all, the proposal
stays as a plain buffer."
  (let ((text (ide-companion--proposal-text diff))
        (path (ide-companion--diff-path diff)))
    (when (ide-companion--settle diff)
      ;; Remembered before sending: a full pipe makes the send wait, and the
      ;; host's sentinel may run meanwhile.
      (let ((record text))
        (puthash path record ide-companion--accepted)
        (if (or (ide-companion--send
                 (append (list :type "diffAccepted" :diffId (ide-companion--diff-id diff))
                         (and (not (string= text (ide-companion--diff-new-content diff)))
                              (list :content text))))
                ;; Not sent, but a death seen meanwhile showed it again already.
                (not (eq (gethash path ide-companion--accepted) record)))
            (progn
              (ide-companion--teardown diff)
              (message "ide-companion: accepted the changes to %s" (file-name-nondirectory path)))
          (remhash path ide-companion--accepted)
          (ide-companion--keep-diff diff)
          (message "ide-companion: %s" (ide-companion--put-words :acceptUnsent "{file}" (file-name-nondirectory path))))))))

(defun ide-companion--put-words (name key value)
  "The host's words NAME with VALUE put for KEY, literally (never a format)."
  (replace-regexp-in-string (regexp-quote key) value (plist-get ide-companion--words name) t t))

(defun ide-companion--file-holds-p (path text)
  "Return non-nil when the bytes of the file PATH are exactly TEXT.
Bytes are compared: TEXT as the CLI writes it (UTF-8, no EOL conversion)."
  (ignore-errors
    (let ((bytes (encode-coding-string text 'utf-8-unix t)))
      (and (file-regular-p path)
           (eql (file-attribute-size (file-attributes path)) (length bytes))
           (with-temp-buffer
             (set-buffer-multibyte nil)
             (insert-file-contents-literally path)
             (string= (buffer-string) bytes))))))

(defun ide-companion--keep-accepted ()
  "The host died: show again each accepted text its file does not hold.
It may have died before it passed the accept on.  Each text comes back as
a plain buffer, as a kept proposal does.  Return the files' names."
  (let (kept)
    (maphash
     (lambda (path text)
       (unless (ide-companion--file-holds-p path text)
         (let ((buffer (get-buffer-create (ide-companion--diff-buffer-name "proposal" path))))
           (ide-companion--fill-diff-buffer buffer text path)
           (with-current-buffer buffer
             ;; C-x C-w offers the file's folder, and writes the text as accepted.
             (setq default-directory (file-name-directory path))
             (setq-local require-final-newline nil))
           (display-buffer buffer)
           (push (file-name-nondirectory path) kept))))
     ide-companion--accepted)
    (clrhash ide-companion--accepted)
    (nreverse kept)))

(defun ide-companion--reject-diff (diff)
  "Reject DIFF."
  (when (ide-companion--settle diff)
    (ide-companion--send (list :type "diffRejected" :diffId (ide-companion--diff-id diff)))
    (ide-companion--teardown diff)
    (message "ide-companion: rejected the changes to %s" (file-name-nondirectory (ide-companion--diff-path diff)))))

(defun ide-companion--keep-diff (diff)
  "Keep settled DIFF's proposal, with the user's edits, as a plain buffer.
The ediff session and the on-disk side go.  Return non-nil when the
proposal buffer is still there."
  (let ((control (ide-companion--diff-control diff)))
    (when (buffer-live-p control)
      (with-current-buffer control (ignore-errors (ediff-really-quit nil)))))
  (when (buffer-live-p (ide-companion--diff-original diff))
    (kill-buffer (ide-companion--diff-original diff)))
  (let ((proposal (ide-companion--diff-proposal diff)))
    (when (buffer-live-p proposal)
      (with-current-buffer proposal
        ;; A plain buffer now: C-c C-c must not accept another diff, and
        ;; C-x C-w writes the text as it stands (text modes add a newline).
        (ide-companion-proposal-mode -1)
        (setq-local require-final-newline nil))
      t)))

(defun ide-companion--keep-all-diffs ()
  "The host died: keep every proposal, with the user's edits, as a plain buffer.
No outcome can reach Gemini CLI any more.  Return the files' names."
  (let (diffs kept)
    (maphash (lambda (_id diff) (push diff diffs)) ide-companion--diffs)
    (dolist (diff diffs)
      (when (and (ide-companion--settle diff) (ide-companion--keep-diff diff))
        (push (file-name-nondirectory (ide-companion--diff-path diff)) kept)))
    kept))

(defun ide-companion--close-all-diffs ()
  "Close every diff without an outcome (the host is gone)."
  (let (diffs)
    (maphash (lambda (_id diff) (push diff diffs)) ide-companion--diffs)
    (dolist (diff diffs)
      (when (ide-companion--settle diff) (ide-companion--teardown diff)))))

(defun ide-companion--reload (params)
  "Answer reload: the agent wrote the path in PARAMS (the host watched for it).
Unmodified buffers visiting it revert without a prompt; a modified one is
never reverted, the host's words say so."
  (let ((path (plist-get params :path))
        (warning (plist-get params :unsavedWarning)))
    (unless (and (stringp path) (stringp warning))
      (error "The reload request lacks path or unsavedWarning"))
    (when (eq (plist-get params :holdsAccepted) t)
      (remhash path ide-companion--accepted))
    (let ((buffer (find-buffer-visiting path)))
      (when buffer
        (with-current-buffer buffer
          (if (buffer-modified-p)
              (display-warning 'ide-companion warning)
            (revert-buffer t t t)))))
    :null))

(defun ide-companion--current-diff ()
  "The diff the current buffer belongs to, else the only open diff, else nil."
  (or (and ide-companion--diff-id (gethash ide-companion--diff-id ide-companion--diffs))
      (and (boundp 'ediff-buffer-B) (buffer-live-p ediff-buffer-B)
           (let ((id (buffer-local-value 'ide-companion--diff-id ediff-buffer-B)))
             (and id (gethash id ide-companion--diffs))))
      (let (all)
        (maphash (lambda (_id diff) (push diff all)) ide-companion--diffs)
        (cond ((null all) nil)
              ((null (cdr all)) (car all))
              (t (let* ((choices (mapcar (lambda (diff) (cons (format "%s (%s)" (ide-companion--diff-path diff)
                                                                       (ide-companion--diff-id diff))
                                                               diff))
                                         all)))
                   (cdr (assoc (completing-read "Diff: " choices nil t) choices))))))))

(defvar ide-companion-proposal-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'ide-companion-accept)
    (define-key map (kbd "C-c C-k") #'ide-companion-reject)
    (define-key map [remap save-buffer] #'ide-companion-accept)
    map)
  "Keymap of `ide-companion-proposal-mode': accept, reject, save to accept.")

(define-minor-mode ide-companion-proposal-mode
  "Minor mode of a buffer holding an edit Gemini CLI proposes.
Edit it freely, then accept it as it stands with \\[ide-companion-accept]
\(or \\[save-buffer]), or reject it with \\[ide-companion-reject].
Killing the buffer rejects too.

\\{ide-companion-proposal-mode-map}"
  :lighter " Proposal"
  :keymap ide-companion-proposal-mode-map)

;;;; Actions (requests from the host)

(defun ide-companion--diff-text (params)
  "Answer diffText: the proposal of the diff in PARAMS, or null if unedited."
  (let ((diff (gethash (plist-get params :diffId) ide-companion--diffs)))
    (unless (and diff (buffer-live-p (ide-companion--diff-proposal diff)))
      (error "No open diff %s" (plist-get params :diffId)))
    (let ((text (ide-companion--proposal-text diff)))
      (list :text (if (string= text (ide-companion--diff-new-content diff)) :null text)))))

(defun ide-companion--close-diff (params)
  "Answer closeDiff: close the diff in PARAMS without an outcome.
Its message, the companion's words, is shown once the view is closed (kept,
when its CLI went away: nobody can take an answer, but the proposal stays)."
  (let ((diff (gethash (plist-get params :diffId) ide-companion--diffs))
        (message (plist-get params :message)))
    (when (and diff (ide-companion--settle diff))
      (when (and (if (equal (plist-get params :reason) "sessionClosed")
                     (ide-companion--keep-diff diff)
                   (ide-companion--teardown diff)
                   t)
                 (stringp message))
        (message "ide-companion: %s" message)))
    :null))

(defun ide-companion--terminal-buffer-p (buffer)
  "Return non-nil when BUFFER is a terminal."
  (memq (buffer-local-value 'major-mode buffer) '(vterm-mode eat-mode term-mode shell-mode eshell-mode)))

(defun ide-companion--open-file (params)
  "Answer openFile: visit the path in PARAMS at its line and column.
Without a line, point stays where it was (the top of a file not visited
yet); without a column, the line's start.  A line past the end is the last
line (not the empty one after a final newline), a column past the line its end."
  (let ((path (plist-get params :path))
        (line (plist-get params :line))
        (column (plist-get params :column)))
    (unless (and (stringp path) (file-name-absolute-p path))
      (error "The openFile request needs an absolute path"))
    (when (file-directory-p path) (error "%s is a directory" path))
    ;; Keep Gemini's terminal in view: open the file in another window.
    (if (ide-companion--terminal-buffer-p (window-buffer (selected-window)))
        (find-file-other-window path)
      (find-file path))
    (when (natnump line)
      (goto-char (point-min))
      (forward-line (1- (max line 1)))
      (when (and (eobp) (bolp) (not (bobp))) (forward-line -1))
      (beginning-of-line)
      (when (natnump column)
        (forward-char (min (1- (max column 1)) (- (line-end-position) (point)))))
      (when (natnump (plist-get params :endLine))
        (ide-companion--select-to (plist-get params :endLine) (plist-get params :endColumn))))
    :null))

(defun ide-companion--select-to (end-line end-column)
  "Activate the region from point up to, not including, END-COLUMN of END-LINE.
Both 1-based; without END-COLUMN the region runs to the end of END-LINE, as
openFile's endLine and endColumn ask."
  (let ((start (point))
        (end (save-excursion
               (goto-char (point-min))
               (forward-line (1- (max end-line 1)))
               (if (natnump end-column)
                   (progn (forward-char (min (1- (max end-column 1)) (- (line-end-position) (point)))) (point))
                 (line-end-position)))))
    (goto-char (max start end))
    (push-mark start t t)))

(defun ide-companion--language-id (buffer)
  "A language id for BUFFER, from its major mode."
  (let ((name (symbol-name (buffer-local-value 'major-mode buffer))))
    (replace-regexp-in-string "\\(-ts\\)?-mode\\'" "" name)))

(defun ide-companion--open-editors (_params)
  "Answer getOpenEditors: the file buffers whose files exist."
  (let (editors)
    (dolist (buffer (buffer-list))
      (let ((file (ide-companion--file-buffer-p buffer)))
        (when file
          (push (list :path file
                      :isActive (if (eq buffer ide-companion--focused) t :false)
                      :isDirty (if (buffer-modified-p buffer) t :false)
                      :languageId (ide-companion--language-id buffer)
                      :lineCount (with-current-buffer buffer
                                   (save-restriction (widen) (count-lines (point-min) (point-max)))))
                editors))))
    (list :editors (vconcat (nreverse editors)))))

(defun ide-companion--selection (_params)
  "Answer getSelection: the active region in the focused file buffer, or null."
  (let ((buffer ide-companion--focused))
    (list :selection
          (if (not (and (buffer-live-p buffer) (buffer-local-value 'mark-active buffer)))
              :null
            (with-current-buffer buffer
              (let ((start (region-beginning)) (end (region-end)))
                (list :path (buffer-file-name)
                      :text (buffer-substring-no-properties start end)
                      :start (ide-companion--position start)
                      :end (ide-companion--position end))))))))

(defun ide-companion--buffers-for (path)
  "Live file buffers visiting PATH, or every file buffer under the roots if nil."
  (if path
      (let ((buffer (find-buffer-visiting path)))
        (and buffer (list buffer)))
    (cl-remove-if-not
     (lambda (buffer)
       (let ((file (buffer-file-name buffer)))
         (and file (cl-some (lambda (root) (string-prefix-p (file-name-as-directory root) file))
                            ide-companion--roots))))
     (buffer-list))))

(defun ide-companion--flymake-severity (type)
  "The protocol severity of flymake diagnostic TYPE."
  (let ((category (or (get type 'flymake-category) type)))
    (cond ((memq category '(:error flymake-error)) "error")
          ((memq category '(:warning flymake-warning)) "warning")
          (t "information"))))

(defun ide-companion--flymake-diagnostics (buffer)
  "Flymake's diagnostics in BUFFER, in protocol form."
  (with-current-buffer buffer
    (when (and (bound-and-true-p flymake-mode) (fboundp 'flymake-diagnostics))
      (mapcar (lambda (diag)
                (let ((backend (flymake-diagnostic-backend diag)))
                  (append
                   (list :path (buffer-file-name buffer)
                         :range (list :start (ide-companion--position (flymake-diagnostic-beg diag))
                                      :end (ide-companion--position (flymake-diagnostic-end diag)))
                         :severity (ide-companion--flymake-severity (flymake-diagnostic-type diag))
                         :message (substring-no-properties (flymake-diagnostic-text diag)))
                   (and backend (symbolp backend) (list :source (symbol-name backend))))))
              (flymake-diagnostics)))))

(defun ide-companion--flycheck-diagnostics (buffer)
  "Flycheck's errors in BUFFER, in protocol form."
  (with-current-buffer buffer
    (when (and (bound-and-true-p flycheck-mode) (boundp 'flycheck-current-errors))
      (mapcar (lambda (err)
                (let* ((line (or (flycheck-error-line err) 1))
                       (column (or (flycheck-error-column err) 1))
                       (level (flycheck-error-level err))
                       (checker (flycheck-error-checker err))
                       (id (flycheck-error-id err)))
                  (append
                   (list :path (buffer-file-name buffer)
                         :range (list :start (list :line line :character column)
                                      :end (list :line (or (and (fboundp 'flycheck-error-end-line)
                                                                (flycheck-error-end-line err))
                                                           line)
                                                 :character (or (and (fboundp 'flycheck-error-end-column)
                                                                     (flycheck-error-end-column err))
                                                                column)))
                         :severity (pcase level ('error "error") ('warning "warning") (_ "information"))
                         :message (or (flycheck-error-message err) ""))
                   (and checker (list :source (format "%s" checker)))
                   (and id (list :code (format "%s" id))))))
              flycheck-current-errors))))

(defun ide-companion--diagnostics (params)
  "Answer getDiagnostics for the path in PARAMS, or for the workspace."
  (let (all)
    (dolist (buffer (ide-companion--buffers-for (plist-get params :path)))
      (setq all (append all (ide-companion--flymake-diagnostics buffer)
                        (ide-companion--flycheck-diagnostics buffer))))
    (list :diagnostics (vconcat all))))

(defun ide-companion--document-dirty (params)
  "Answer checkDocumentDirty for the path in PARAMS."
  (let ((buffer (find-buffer-visiting (plist-get params :path))))
    (list :isOpen (if buffer t :false)
          :isDirty (if (and buffer (buffer-modified-p buffer)) t :false))))

(defun ide-companion--save-document (params)
  "Answer saveDocument: save the buffer visiting the path in PARAMS."
  (let ((buffer (find-buffer-visiting (plist-get params :path))))
    (cond
     ((not buffer) (list :saved :false :message "The file is not open in Emacs"))
     ((not (buffer-modified-p buffer)) (list :saved t :message "No unsaved changes"))
     ((not (verify-visited-file-modtime buffer))
      ;; `save-buffer' would ask whether to overwrite; a request must never block.
      (list :saved :false :message "The file changed on disk since Emacs read it; save it in Emacs to choose"))
     (t (with-current-buffer buffer (save-buffer))
        (if (buffer-modified-p buffer)
            (list :saved :false :message "Emacs did not save the buffer")
          (list :saved t))))))

(defun ide-companion--close-file (params)
  "Answer closeFile: kill the buffer visiting the path in PARAMS.
A modified buffer stays.  The companion asks when the path was swapped
while Emacs opened it."
  (let ((buffer (find-buffer-visiting (plist-get params :path))))
    (when (and buffer (not (buffer-modified-p buffer)))
      (kill-buffer buffer))
    :null))

(defconst ide-companion--actions
  '(("showDiff" . ide-companion--show-diff)
    ("diffText" . ide-companion--diff-text)
    ("closeDiff" . ide-companion--close-diff)
    ("openFile" . ide-companion--open-file)
    ("getOpenEditors" . ide-companion--open-editors)
    ("getSelection" . ide-companion--selection)
    ("getDiagnostics" . ide-companion--diagnostics)
    ("checkDocumentDirty" . ide-companion--document-dirty)
    ("saveDocument" . ide-companion--save-document)
    ("closeFile" . ide-companion--close-file)
    ("selectedText" . ide-companion--selected-text)
    ("reload" . ide-companion--reload))
  "Handlers of the host's requests, by action name.")

(defun ide-companion--answer (id action params)
  "Answer request ID for ACTION with PARAMS, with a `response' line."
  (let ((handler (cdr (assoc action ide-companion--actions))))
    (ide-companion--send
     (condition-case err
         (if handler
             (list :type "response" :id id :result (funcall handler params))
           (list :type "response" :id id :error (format "Emacs does not answer `%s'" action)))
       (error (list :type "response" :id id :error (error-message-string err)))))))

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

;;;; Commands

(defun ide-companion--status-text ()
  "One line saying what the companion is doing."
  (cond
   (ide-companion--ready
    (let ((diffs (hash-table-count ide-companion--diffs)))
      (format "ide-companion: listening on port %s for Gemini CLI; %d session%s connected%s; discovery file %s"
              (plist-get ide-companion--ready :port)
              ide-companion--sessions (if (= ide-companion--sessions 1) "" "s")
              (if (> diffs 0) (format ", %d diff%s open" diffs (if (= diffs 1) "" "s")) "")
              (plist-get ide-companion--ready :discoveryFile))))
   ((ide-companion--running-p) "ide-companion: the host is starting")
   (t (format "ide-companion: not running%s"
              (if ide-companion--last-error (concat ": " ide-companion--last-error) "")))))

(defun ide-companion--lighter ()
  "The mode line lighter."
  (cond ((and ide-companion--ready (> ide-companion--sessions 0)) (format " Gemini[%d]" ide-companion--sessions))
        (ide-companion--ready " Gemini")
        (t " Gemini!")))

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
  :lighter (:eval (ide-companion--lighter))
  (if ide-companion-mode
      (progn
        (dolist (hook ide-companion--hooks) (add-hook (car hook) (cdr hook)))
        (add-function :after after-focus-change-function #'ide-companion--focus-change)
        (unless ide-companion--idle-timer
          (setq ide-companion--idle-timer
                (run-with-idle-timer ide-companion-cursor-delay t #'ide-companion--on-idle)))
        (let ((problem (ide-companion--start)))
          (when problem (message "ide-companion: %s" problem))))
    (dolist (hook ide-companion--hooks) (remove-hook (car hook) (cdr hook)))
    (remove-function after-focus-change-function #'ide-companion--focus-change)
    (when ide-companion--idle-timer
      (cancel-timer ide-companion--idle-timer)
      (setq ide-companion--idle-timer nil))
    (ide-companion--stop)))

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

(defun ide-companion-stop ()
  "Stop the companion; Gemini CLI sessions connected to it disconnect."
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
  (let ((diff (ide-companion--current-diff)))
    (unless diff (user-error "No Gemini diff is open"))
    (ide-companion--accept-diff diff)))

(defun ide-companion-reject ()
  "Reject the diff of this buffer (or the only open one)."
  (interactive)
  (let ((diff (ide-companion--current-diff)))
    (unless diff (user-error "No Gemini diff is open"))
    (ide-companion--reject-diff diff)))

;;;###autoload
(defun ide-companion-gemini ()
  "Open Gemini CLI in a terminal tied to this Emacs, or show the one open."
  (interactive)
  (if (and (buffer-live-p ide-companion--gemini-buffer)
           (process-live-p (get-buffer-process ide-companion--gemini-buffer)))
      (pop-to-buffer ide-companion--gemini-buffer)
    (let ((missing (ide-companion--gemini-missing)))
      (when missing (user-error "Ide-companion: %s" missing)))
    (unless ide-companion-mode (ide-companion-mode 1))
    (let ((problem (ide-companion--start)))
      (when problem (user-error "Ide-companion: %s" problem)))
    ;; The terminal must start with the companion's environment.
    (unless (ide-companion--wait-ready 20)
      (user-error "Ide-companion: the companion is not ready: %s"
                  (or ide-companion--last-error "the host did not answer within 20 seconds")))
    (let ((default-directory (file-name-as-directory
                              (or (and buffer-file-name (ide-companion--project-root default-directory))
                                  (car ide-companion--roots)
                                  default-directory))))
      (setq ide-companion--gemini-buffer
            (ide-companion--open-terminal ide-companion-gemini-command "*gemini*")))))

(defun ide-companion--doctor-lines ()
  "The findings of `ide-companion-doctor', one string each."
  (let* ((node (executable-find ide-companion-node-program))
         (version (ide-companion--node-version))
         (host (ide-companion--host-file))
         (discovery (plist-get ide-companion--ready :discoveryFile))
         (gemini (ide-companion--gemini-missing)))
    (list
     (format "%s Emacs %s%s" (if (fboundp 'json-serialize) "ok  " "FAIL") emacs-version
             (if (fboundp 'json-serialize) " with native JSON" " without native JSON (libjansson): rebuild Emacs with it"))
     (cond ((not node) (format "FAIL Node.js: `%s' is not on `exec-path' (install Node.js %d or newer)"
                               ide-companion-node-program ide-companion--min-node-major))
           ((not version) (format "FAIL Node.js: `%s --version' printed no version" node))
           ((< (car version) ide-companion--min-node-major)
            (format "FAIL Node.js %s at %s is too old: install Node.js %d or newer" (cdr version) node ide-companion--min-node-major))
           (t (format "ok   Node.js %s at %s" (cdr version) node)))
     (if host (format "ok   host %s (%s)" host (cdr (ide-companion--host-found)))
       (format "FAIL host: %s" (or (ide-companion--start-problem) "not found")))
     (cond (ide-companion--ready
            (format "ok   host running (pid %s), port %s, %d CLI session%s%s\nok   agents served: %s (`ide-companion-agents' chooses)"
                    (process-id ide-companion--process) (plist-get ide-companion--ready :port)
                    ide-companion--sessions (if (= ide-companion--sessions 1) "" "s")
                    (if ide-companion--session-agents (format " (%s)" (string-join ide-companion--session-agents ", ")) "")
                    (string-join (append (plist-get ide-companion--ready :agents) nil) ", ")))
           ((ide-companion--running-p) "WAIT host starting")
           (t (format "FAIL host not running%s (M-x ide-companion-start)"
                      (if ide-companion--last-error (concat ": " ide-companion--last-error) ""))))
     (cond ((not discovery) "FAIL discovery file: none (the host is not ready)")
           ((file-exists-p discovery) (format "ok   discovery file %s" discovery))
           (t (format "FAIL discovery file %s is missing" discovery)))
     (let ((socket (plist-get ide-companion--ready :socketPath)))
       (cond ((not ide-companion--ready) "WAIT socket: the host is not ready")
             ((not socket) "WARN no socket: gemini in a container or over SSH cannot reach this Emacs")
             ((not (file-exists-p socket)) (format "FAIL socket %s is missing" socket))
             (t (format "ok   socket %s: for gemini in a container, --sandbox or over SSH (ide-companion container, sandbox or ssh HOST)" socket))))
     (let ((hint (plist-get ide-companion--ready :containerHint)))
       (if hint (format "WARN container: %s" hint) "ok   container: none, or REMOTE_CONTAINERS/SSH_CONNECTION set: gemini dials 127.0.0.1"))
     (if gemini (format "FAIL gemini: %s" gemini)
       (format "ok   gemini %s" (executable-find (car (split-string-and-unquote ide-companion-gemini-command)))))
     (format "ok   terminal for M-x ide-companion-gemini: %s" (ide-companion--terminal-kind)))))

(defun ide-companion-doctor ()
  "Check what the companion needs and show the findings in a buffer.
Return the findings as a string."
  (interactive)
  (let ((text (mapconcat #'identity (ide-companion--doctor-lines) "\n")))
    (when (called-interactively-p 'interactive)
      (with-current-buffer (get-buffer-create "*ide-companion-doctor*")
        (let ((inhibit-read-only t))
          (erase-buffer)
          (insert text "\n")
          (special-mode))
        (display-buffer (current-buffer))))
    text))

(provide 'ide-companion)
;;; ide-companion.el ends here
