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
  "Answer closeDiff: close the diff in PARAMS without an outcome; say its message.
A diff whose CLI went away is kept: nobody can take an answer.  `accepted':
the host took the accept held since (its copy written, the CLI told)."
  (let* ((keep (equal (plist-get params :reason) "sessionClosed"))
         (held (gethash (plist-get params :diffId) ide-companion--held))
         (diff (or held (gethash (plist-get params :diffId) ide-companion--diffs)))
         (message (plist-get params :message)))
    ;; Kept at the host's death, and said so then.
    (when (gethash (plist-get params :diffId) ide-companion--kept-at-death)
      (remhash (plist-get params :diffId) ide-companion--kept-at-death)
      (setq diff nil))
    (when (and diff (or held (ide-companion--settle diff)))
      (let ((kept (and (if held (ide-companion--unhold held keep) (ide-companion--end-view diff keep))
                       (buffer-name (ide-companion--diff-proposal diff)))))
        (when (stringp message)
          (message "ide-companion: %s%s" message (if kept (format ": %s" kept) "")))))
    :null))

(defun ide-companion--open-file (params)
  "Answer openFile: visit the path in PARAMS at its line and column, if any.
Each is clamped to the text (docs/editor-protocol.md says how)."
  (let ((path (plist-get params :path))
        (line (plist-get params :line))
        (column (plist-get params :column)))
    (unless (and (stringp path) (file-name-absolute-p path))
      (error "The openFile request needs an absolute path"))
    (when (file-directory-p path) (error "%s is a directory" path))
    ;; Keep Gemini's terminal in view: open the file in another window.
    (if (memq (buffer-local-value 'major-mode (window-buffer)) '(vterm-mode eat-mode term-mode shell-mode eshell-mode))
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
              (list :path (buffer-file-name) :text (buffer-substring-no-properties (region-beginning) (region-end))
                    :start (ide-companion--position (region-beginning)) :end (ide-companion--position (region-end))))))))

(defun ide-companion--diagnostic-items (_params)
  "Answer diagnosticItems: flymake's and flycheck's findings in file buffers.
The host shapes them (severities, the file asked, the workspace)."
  (let (items)
    (dolist (buffer (buffer-list))
      (let ((path (ide-companion--file-buffer-p buffer)))
        (with-current-buffer buffer
          (when (and path (bound-and-true-p flymake-mode))
            (dolist (diag (flymake-diagnostics))
              (let ((type (flymake-diagnostic-type diag)) (backend (flymake-diagnostic-backend diag)))
                (push (list :kind "emacs" :path path :severity (symbol-name (or (get type 'flymake-category) type))
                            :start (ide-companion--position (flymake-diagnostic-beg diag))
                            :end (ide-companion--position (flymake-diagnostic-end diag))
                            :message (substring-no-properties (flymake-diagnostic-text diag))
                            :source (if (and backend (symbolp backend)) (symbol-name backend) "flymake"))
                      items))))
          (when (and path (bound-and-true-p flycheck-mode))
            (dolist (err flycheck-current-errors) ; nil fields are {} on the wire: the host skips them
              (push (list :kind "emacs" :path path :severity (symbol-name (flycheck-error-level err))
                          :start (list :line (flycheck-error-line err) :character (flycheck-error-column err))
                          :end (and (fboundp 'flycheck-error-end-line)
                                    (list :line (flycheck-error-end-line err) :character (flycheck-error-end-column err)))
                          :message (flycheck-error-message err) :source (format "%s" (flycheck-error-checker err))
                          :code (and (flycheck-error-id err) (format "%s" (flycheck-error-id err))))
                    items))))))
    (list :items (vconcat (nreverse items)))))

(defun ide-companion--document-dirty (params)
  "Answer checkDocumentDirty for the path in PARAMS.
Read-only and changed on disk refuse a write under the buffer (the host's rule)."
  (let ((buffer (find-buffer-visiting (plist-get params :path))))
    (list :isOpen (if buffer t :false)
          :isDirty (if (and buffer (buffer-modified-p buffer)) t :false)
          :readOnly (if (and buffer (buffer-local-value 'buffer-read-only buffer)) t :false)
          :changedOnDisk (if (and buffer (not (verify-visited-file-modtime buffer))) t :false))))

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
  "Answer closeFile: kill the unmodified buffer visiting the path in PARAMS."
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
    ("diagnosticItems" . ide-companion--diagnostic-items)
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
