;;; ide-companion-actions.el --- The host's requests and their answers  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; One handler per action the host asks for (docs/editor-protocol.md).

;;; Code:

(require 'ide-companion-context)
(require 'ide-companion-diff)
(eval-when-compile (require 'flymake))

(declare-function flycheck-error-line "ext:flycheck" (err))
(declare-function flycheck-error-column "ext:flycheck" (err))
(declare-function flycheck-error-end-line "ext:flycheck" (err))
(declare-function flycheck-error-end-column "ext:flycheck" (err))
(declare-function flycheck-error-level "ext:flycheck" (err))
(declare-function flycheck-error-message "ext:flycheck" (err))
(declare-function flycheck-error-checker "ext:flycheck" (err))
(declare-function flycheck-error-id "ext:flycheck" (err))
(defvar flycheck-mode)
(defvar flycheck-current-errors)

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
      (let ((kept (and (ide-companion--end-view diff (equal (plist-get params :reason) "sessionClosed"))
                       (buffer-name (ide-companion--diff-proposal diff)))))
        (when (stringp message)
          (message "ide-companion: %s%s" message (if kept (format ": %s" kept) "")))))
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
      (ide-companion--goto line (or column 1) t)
      ;; The region runs up to, not including, endColumn (without it: the line's end).
      (when (natnump (plist-get params :endLine))
        (let ((start (point)))
          (ide-companion--goto (plist-get params :endLine) (plist-get params :endColumn))
          (goto-char (max start (point)))
          (push-mark start t t))))
    :null))

(defun ide-companion--goto (line column &optional not-after-last)
  "Go to 1-based LINE and COLUMN, each clamped (nil COLUMN: the line's end).
NOT-AFTER-LAST: the empty line after a final newline is the last line."
  (goto-char (point-min))
  (forward-line (1- (max line 1)))
  (when (and not-after-last (eobp) (bolp) (not (bobp))) (forward-line -1))
  (beginning-of-line)
  (forward-char (if (natnump column) (min (1- (max column 1)) (- (line-end-position) (point))) (- (line-end-position) (point)))))

(defun ide-companion--open-editors (_params)
  "Answer getOpenEditors: the file buffers whose files exist."
  (let (editors)
    (dolist (buffer (buffer-list))
      (let ((file (ide-companion--file-buffer-p buffer)))
        (when file
          (push (list :path file
                      :isActive (if (eq buffer ide-companion--focused) t :false)
                      :isDirty (if (buffer-modified-p buffer) t :false)
                      :languageId (replace-regexp-in-string "\\(-ts\\)?-mode\\'" "" (symbol-name (buffer-local-value 'major-mode buffer)))
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

(defconst ide-companion--actions ; one handler per action
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

(provide 'ide-companion-actions)
;;; ide-companion-actions.el ends here
