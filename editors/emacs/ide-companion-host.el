;;; ide-companion-host.el --- The host process and its JSON-lines wire  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Starts the Node.js host, frames its JSON lines, hands its messages on,
;; puts its variables in `process-environment' (so that terminals started from
;; Emacs connect to it) and restarts it when it dies.

;;; Code:

(require 'ide-companion-options)

(require 'json)                         ; the fallback of `ide-companion--parse'
(declare-function ide-companion--initial-roots "ide-companion-context" ())
(declare-function ide-companion--trusted "ide-companion-context" ())
(declare-function ide-companion--report-open-buffers "ide-companion-context" ())
(declare-function ide-companion--check-focus "ide-companion-context" (&optional force))
(declare-function ide-companion--end-all-diffs "ide-companion-diff" (keep))
(declare-function ide-companion--answer "ide-companion-actions" (id action params))

(defun ide-companion--log (format-string &rest args)
  "Append FORMAT-STRING formatted with ARGS to the log buffer."
  (with-current-buffer (get-buffer-create " *ide-companion-log*")
    (goto-char (point-max))
    (insert (format-time-string "%H:%M:%S.%3N ") (apply #'format format-string args) "\n")))

(defun ide-companion--running-p ()
  "Return non-nil when the host process is alive."
  (and ide-companion--process (process-live-p ide-companion--process)))

(defun ide-companion--send-line (line)
  "Send LINE, one JSON object and a newline, to the running host; non-nil if sent.
A host dead but not reaped yet fails the write: its sentinel sees to that."
  (when (ide-companion--running-p)
    (condition-case err
        (progn (process-send-string ide-companion--process line) t)
      (error (ide-companion--log "cannot send to the host: %s" (error-message-string err))
             nil))))

(defun ide-companion--json-string (string)
  "STRING as a JSON string literal (Emacs 27's `json-serialize' takes no bare one)."
  (substring (json-serialize (vector string)) 1 -1))

(defun ide-companion--send (message)
  "Send MESSAGE, a plist, to the host as one JSON line; non-nil if sent."
  (ide-companion--send-line (concat (json-serialize message) "\n")))

(defun ide-companion--put-words (name key value)
  "The host's words NAME with VALUE put for KEY, literally (never a format)."
  (replace-regexp-in-string (regexp-quote key) value (plist-get ide-companion--words name) t t))

(defun ide-companion--environment-without-companion ()
  "`process-environment' without the variables this package set."
  (let ((names (mapcar #'car ide-companion--saved-env)))
    (cl-remove-if (lambda (entry)
                    (cl-some (lambda (name) (string-prefix-p (concat name "=") entry)) names))
                  process-environment)))

(defun ide-companion--apply-env (env)
  "Put ENV, a plist of variable keywords and strings, in `process-environment'.
A `gemini' started from now on connects to this Emacs, not another one."
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
        (and (eq 0 (ignore-errors (call-process node nil t nil "--version")))
             (progn (goto-char (point-min)) (looking-at "v\\([0-9]+\\)\\.[0-9.]+"))
             (cons (string-to-number (match-string 1)) (match-string 0)))))))

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
  (unless (ide-companion--running-p)
    (let ((problem (ide-companion--start-problem)))
      (if problem (setq ide-companion--restart-env nil ide-companion--last-error problem) (ide-companion--launch) nil))))

(defun ide-companion--launch ()
  "Run the host and send it `hello'."
  (setq ide-companion--partial nil
        ide-companion--ready nil
        ide-companion--last-error nil
        ide-companion--focused nil
        ide-companion--roots (ide-companion--initial-roots))
  (let* ((stderr (get-buffer-create " *ide-companion-host*"))
         ;; A remote `default-directory' would start the host on that machine.
         (default-directory (expand-file-name "~/"))
         ;; The host must not inherit the variables that tie terminals to it.
         (process-environment (append (prog1 ide-companion--restart-env (setq ide-companion--restart-env nil))
                                      (ide-companion--environment-without-companion)))
         (process (make-process
                   :name "ide-companion" :connection-type 'pipe :coding 'utf-8-unix :noquery t
                   ;; `hello' names the editor.
                   :command (list (executable-find ide-companion-node-program) (ide-companion--host-file))
                   :stderr stderr :filter #'ide-companion--filter :sentinel #'ide-companion--sentinel)))
    (let ((stderr-process (get-buffer-process stderr)))
      (when stderr-process (set-process-query-on-exit-flag stderr-process nil)))
    (setq ide-companion--process process)
    (ide-companion--log "host started (pid %s)" (process-id process))
    (let ((trusted (ide-companion--trusted)))
      (ide-companion--send
       (append (list :type "hello" :protocol 1 :ide '(:name "emacs" :displayName "Emacs") :pid (emacs-pid)
                     :roots (vconcat ide-companion--roots)
                     ;; `reload' is no tool.
                     :capabilities ["openFile" "getOpenEditors" "getSelection" "getDiagnostics" "diagnosticItems"
                                    "checkDocumentDirty" "saveDocument" "reload"])
               (and trusted (list :trustedFolders trusted))
               (and ide-companion-agents (list :agents (vconcat ide-companion-agents)))
               (and ide-companion-amp-edit-file (list :ampEditFile ide-companion-amp-edit-file)))))))

(defun ide-companion--filter (process chunk)
  "Split CHUNK, output of the host PROCESS, into lines and handle each."
  (when (eq process ide-companion--process)
    (let ((start 0) (lines nil) newline)
      ;; Chunks wait in a list for their newline: concatenating each would be quadratic.
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
     ;; The native parser refuses \u0000, which a file may hold: json.el reads it (slowly).
     (if (not (string-match-p "\\\\u0000" line))
         (signal (car err) (cdr err))
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
  (pcase (plist-get message :type)
    ("ready" (ide-companion--on-ready message))
    ("sessions" (ide-companion--on-sessions message))
    ;; A host started after a death: restarted, or it gives up (and exits).
    ("say" (message "ide-companion: %s" (setq ide-companion--last-error (plist-get message :message))))
    ("health" (ide-companion--keep-health message))
    ;; Out of the filter: answering may show windows or save buffers.
    ("request" (run-at-time 0 nil #'ide-companion--answer
                            (plist-get message :id) (plist-get message :action) (plist-get message :params)))
    ("error"
     (let ((text (plist-get message :message)))
       (ide-companion--log "host error: %s" text)
       (unless ide-companion--ready
         (setq text (setq ide-companion--last-error (format "The companion host could not start: %s" text))))
       (message "ide-companion: %s" text)))
    (type (ide-companion--log "unknown host message type %S" type))))

(defun ide-companion--on-ready (message)
  "The host listens: keep MESSAGE, tie terminals to it, report the editor state."
  (setq ide-companion--ready message
        ide-companion--words (plist-get message :words))
  (ide-companion--apply-env (plist-get message :env))
  (ide-companion--log "ready on port %s" (plist-get message :port))
  (ide-companion--report-open-buffers)
  (ide-companion--check-focus t)
  (force-mode-line-update t)
  (run-hooks 'ide-companion-ready-hook))

(defun ide-companion--on-sessions (message)
  "Take MESSAGE: the sessions in the host's words, what to say, the health."
  (ide-companion--keep-health message)
  (dolist (line (plist-get message :said)) (message "ide-companion: %s" line))
  (force-mode-line-update t))

(defun ide-companion--keep-health (message)
  "Keep the health lines and session words of MESSAGE with the host's `ready'."
  (cl-loop for (key value) on message by #'cddr
           when (and ide-companion--ready (memq key '(:health :summary :label)))
           do (setq ide-companion--ready (plist-put ide-companion--ready key value))))

(defun ide-companion--health ()
  "The running host's health lines, made now (the last ones if it is slow)."
  (let ((last (plist-get ide-companion--ready :health)))
    (when (ide-companion--send '(:type "health"))
      (ide-companion--wait 2 (lambda () (not (eq last (plist-get ide-companion--ready :health))))))
    (plist-get ide-companion--ready :health)))

(defvar ide-companion-mode)
(defvar ide-companion--restart-env nil
  "For the host started after a death: how the last one ended and what was kept.")
(defconst ide-companion--gave-up 75 "The exit code of a host that gave up (protocol hostRestarts.ts).")

(defun ide-companion--sentinel (process event)
  "Clean up after the host PROCESS ended with EVENT."
  (when (and (eq process ide-companion--process) (not (process-live-p process)))
    (ide-companion--log "host ended: %s" (string-trim event))
    (cond
     (ide-companion--stopping (ide-companion--forget-host))
     (ide-companion--ready
      (ide-companion--died (format (if (eq (process-status process) 'signal) "signal %d" "%d") (process-exit-status process))))
     ;; It said why (`say').
     ((eql (process-exit-status process) ide-companion--gave-up) (ide-companion--forget-host))
     (t
      (setq ide-companion--last-error
            (or ide-companion--last-error
                (format "The companion host exited (%s); see the buffer \" *ide-companion-host*\"" (string-trim event))))
      (message "ide-companion: %s; M-x ide-companion-start restarts it" ide-companion--last-error)
      (ide-companion--forget-host)))))

(defun ide-companion--died (how)
  "A running host died unasked (HOW: its exit code, or \"signal N\").
Its reaper removes its files; the proposals stay; a new host starts, told
how this one ended: it counts, backs off and says so."
  (let ((kept (ide-companion--end-all-diffs t)))
    (ide-companion--forget-host)
    (setq ide-companion--restart-env
          (list (concat "IDE_COMPANION_HOST_DIED=" how)
                (concat "IDE_COMPANION_HOST_KEPT=" (json-serialize (vconcat kept)))))
    (run-at-time 0 nil (lambda () (if ide-companion-mode (ide-companion--start) (setq ide-companion--restart-env nil))))))

(defun ide-companion--forget-host ()
  "Reset the state tied to a host that is gone."
  (setq ide-companion--process nil
        ide-companion--ready nil)
  (ide-companion--restore-env)
  (ide-companion--end-all-diffs nil)
  (force-mode-line-update t))

(defun ide-companion--stop ()
  "End the host and wait, bounded, for its exit (its files go first)."
  (let ((process ide-companion--process))
    (when (and process (process-live-p process))
      (let ((ide-companion--stopping t))
        (ignore-errors (process-send-eof process))
        ;; Its exit, bounded: killed while it closes its sessions, it leaves Codex's socket behind.
        (ide-companion--wait 5 #'ignore)
        (when (process-live-p process) (delete-process process))))
    (ide-companion--forget-host)))

(defun ide-companion--wait (seconds done)
  "Wait up to SECONDS for the running host's output to make DONE non-nil."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall done)) (ide-companion--running-p) (< (float-time) deadline))
      (accept-process-output ide-companion--process 0.05))))

(defun ide-companion--wait-ready (seconds)
  "Wait up to SECONDS for the host to be ready; return non-nil when it is."
  (ide-companion--wait seconds (lambda () ide-companion--ready))
  ide-companion--ready)

(provide 'ide-companion-host)
;;; ide-companion-host.el ends here
