;;; ide-companion-diff.el --- Proposed edits shown as diffs  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Shows an edit the agent proposes (ediff, or side by side), sends the
;; user's accept or reject, and keeps what the host can no longer take.

;;; Code:

(require 'ide-companion-host)

(declare-function ediff-setup-windows-plain "ediff-wind" (buffer-a buffer-b buffer-c control-buffer))
(declare-function ediff-really-quit "ediff-util" (reverse-default-keep-variants))
(declare-function ediff-quit "ediff-util" (reverse-default-keep-variants))
(defvar ediff-window-setup-function)
(defvar ediff-split-window-function)
(defvar ediff-buffer-B)
(declare-function ide-companion-accept "ide-companion" ())
(declare-function ide-companion-reject "ide-companion" ())

(defun ide-companion--diff-buffer (agent role path text)
  "A new buffer for the ROLE side of AGENT's diff of PATH, holding exactly TEXT."
  (with-current-buffer (generate-new-buffer (format "*%s %s: %s*" agent role (file-name-nondirectory path)))
    (insert text)
    ;; The mode's hooks could start linters or servers on a scratch buffer.
    (let ((buffer-file-name path))
      (ignore-errors (delay-mode-hooks (set-auto-mode t))))
    (setq buffer-file-coding-system 'no-conversion)
    (set-buffer-modified-p nil)
    (goto-char (point-min))
    (setq buffer-undo-list nil)
    (current-buffer)))

(defun ide-companion--show-diff (params)
  "Answer showDiff: show the diff in PARAMS, unless it is kept already.
An accept kept when the host died may come back under its id from the next
host (its copy): it is kept, and was said, once."
  (unless (and (eq (plist-get params :kept) t) (gethash (plist-get params :diffId) ide-companion--kept-at-death))
    (ide-companion--open-diff params))
  :null)

(defun ide-companion--open-diff (params)
  "Show the diff in PARAMS (diffId, filePath, newContent, originalContent).
One to keep at once (PARAMS' kept) gets its proposal buffer only."
  (let* ((id (plist-get params :diffId))
         (path (plist-get params :filePath))
         (original (plist-get params :originalContent))
         (kept (eq (plist-get params :kept) t))
         (old (gethash id ide-companion--diffs)))
    (when old (ide-companion--settle old) (ide-companion--end-view old))
    (let* ((agent (or (plist-get params :agent) "Gemini CLI"))
           (diff (ide-companion--make-diff
                  :id id :path path :new-content (plist-get params :newContent) :agent agent
                  :window-config (unless kept (current-window-configuration))
                  :proposal (ide-companion--diff-buffer agent "proposal" path (plist-get params :newContent)))))
      (with-current-buffer (ide-companion--diff-proposal diff)
        (setq ide-companion--diff-id id)
        (ide-companion-proposal-mode 1)
        (add-hook 'kill-buffer-hook #'ide-companion--proposal-killed nil t))
      (puthash id diff ide-companion--diffs)
      (if kept
          (ide-companion--display-kept (ide-companion--diff-proposal diff))
        (with-current-buffer (setf (ide-companion--diff-original diff)
                                   (ide-companion--diff-buffer agent (if original "original" "new file") path (or original "")))
          (setq ide-companion--diff-id id buffer-read-only t))
        (if (eq ide-companion-diff-layout 'ediff)
            (ide-companion--display-ediff diff)
          (delete-other-windows)
          (switch-to-buffer (ide-companion--diff-original diff) nil t)
          (select-window (split-window-right))
          (switch-to-buffer (ide-companion--diff-proposal diff) nil t))
        ;; The companion's words (diffWords.ts); the buffer's state picks which.
        (let ((visiting (find-buffer-visiting path)) (words (plist-get params :words)))
          (when words
            (if (and visiting (buffer-modified-p visiting))
                (display-warning 'ide-companion (plist-get words :unsaved))
              (message "%s" (plist-get words :proposed))))))
      :null)))

(defun ide-companion--display-kept (buffer)
  "Show kept BUFFER in a new window if one fits, never in the selected one.
A diff may have just opened there."
  (display-buffer buffer '((display-buffer-reuse-window display-buffer-pop-up-window display-buffer-no-window)
                           (inhibit-same-window . t) (allow-no-window . t))))

(defun ide-companion--display-ediff (diff)
  "Show DIFF with `ediff-buffers', the proposal in ediff's buffer B."
  (require 'ediff)
  (let ((ediff-window-setup-function #'ediff-setup-windows-plain)
        (ediff-split-window-function #'split-window-horizontally))
    (ediff-buffers (ide-companion--diff-original diff) (ide-companion--diff-proposal diff)
                   (list (lambda ()
                           (setf (ide-companion--diff-control diff) (current-buffer))
                           ;; The cursor lands in the control panel: the keys the echo line names work there too.
                           (ide-companion-proposal-mode 1))))))

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

(defun ide-companion--end-view (diff &optional keep)
  "Close DIFF's ediff session and buffers, restoring the windows.
KEEP: the proposal stays as a plain buffer; then return non-nil if it is there.
KEEP `held': it stays as it is, hidden, the windows restored."
  (let ((control (ide-companion--diff-control diff))
        (proposal (ide-companion--diff-proposal diff)))
    (when (buffer-live-p control)
      (with-current-buffer control (ignore-errors (ediff-really-quit nil))))
    (dolist (buffer (list (ide-companion--diff-original diff) (and (not keep) proposal)))
      (when (buffer-live-p buffer)
        (with-current-buffer buffer (set-buffer-modified-p nil))
        (kill-buffer buffer)))
    (when (and (eq keep 'held) (buffer-live-p proposal))
      (with-current-buffer proposal (rename-buffer (concat " " (buffer-name)) t)))
    (if (eq keep t)
        (when (buffer-live-p proposal)
          (with-current-buffer proposal
            (ide-companion-proposal-mode -1)
            (setq default-directory (file-name-directory (ide-companion--diff-path diff)))
            (setq-local require-final-newline nil))
          t)
      (let ((config (ide-companion--diff-window-config diff)))
        (when (and config (frame-live-p (window-configuration-frame config)))
          (set-window-configuration config))))))

(defun ide-companion--unhold (diff keep)
  "End the hold on the accept of DIFF: KEEP its proposal, else kill it.
Kept, it is a plain buffer shown beside the user's windows; then non-nil."
  (remhash (ide-companion--diff-id diff) ide-companion--held)
  (let ((proposal (ide-companion--diff-proposal diff)))
    (when (buffer-live-p proposal)
      (with-current-buffer proposal
        (set-buffer-modified-p nil)
        (rename-buffer (string-trim-left (buffer-name)) t))
      (if (not keep)
          (ignore (kill-buffer proposal))
        (ide-companion--display-kept proposal)
        (ide-companion--end-view diff t)))))

(defun ide-companion--proposal-text (diff)
  "The text of DIFF's proposal buffer as it stands."
  (with-current-buffer (ide-companion--diff-proposal diff)
    (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max)))))

(defun ide-companion--proposal-killed ()
  "The proposal buffer is being killed by the user: reject its diff."
  (let ((diff (gethash ide-companion--diff-id ide-companion--diffs)))
    (when diff (ide-companion--reject-diff diff t))))

(defun ide-companion--accept-diff (diff)
  "Accept DIFF with the proposal as the user left it.
Its proposal stays, hidden, until the host says it took the accept (closeDiff
`accepted'); a host that dies first leaves it kept.  The host keeps the text
until the file holds it (a host killed then leaves it to the next, which shows
it kept).  When the accept cannot be sent at all, the proposal stays as a
plain buffer."
  (let ((text (ide-companion--proposal-text diff))
        (path (ide-companion--diff-path diff)))
    (when (ide-companion--settle diff)
      (if (ide-companion--send
           (append (list :type "diffAccepted" :diffId (ide-companion--diff-id diff))
                   (and (not (string= text (ide-companion--diff-new-content diff))) (list :content text))))
          (progn
            (puthash (ide-companion--diff-id diff) diff ide-companion--held)
            (ide-companion--end-view diff 'held)
            (message "ide-companion: accepted the changes to %s" (file-name-nondirectory path)))
        (ide-companion--end-view diff t)
        (message "ide-companion: %s" (ide-companion--put-words :acceptUnsent "{file}" (file-name-nondirectory path)))))))

(defun ide-companion--reject-diff (diff &optional killed)
  "Reject DIFF; KILLED: its proposal buffer is being killed."
  (when (ide-companion--settle diff)
    (ide-companion--send (list :type "diffRejected" :diffId (ide-companion--diff-id diff)))
    ;; A buffer being killed dies anyway; the rest goes after its hook.
    (if killed (run-at-time 0 nil #'ide-companion--end-view diff) (ide-companion--end-view diff))
    (message "ide-companion: rejected the changes to %s" (file-name-nondirectory (ide-companion--diff-path diff)))))

(defun ide-companion--end-all-diffs (keep)
  "The host is gone: end every diff and accept not taken, KEEP its proposal;
return their files."
  (cl-loop for diff in (append (hash-table-values ide-companion--diffs) (hash-table-values ide-companion--held))
           when (and (if (gethash (ide-companion--diff-id diff) ide-companion--held)
                         (progn (when keep (puthash (ide-companion--diff-id diff) t ide-companion--kept-at-death))
                                (ide-companion--unhold diff keep))
                       (and (ide-companion--settle diff) (ide-companion--end-view diff keep)))
                     keep)
           collect (file-name-nondirectory (ide-companion--diff-path diff))))

(defun ide-companion--reload (params)
  "Answer reload: the agent wrote the path in PARAMS; revert its buffer.
A modified buffer is never reverted: the host's words say so."
  (let ((path (plist-get params :path))
        (warning (plist-get params :unsavedWarning)))
    (unless (and (stringp path) (stringp warning))
      (error "The reload request lacks path or unsavedWarning"))
    (let ((buffer (find-buffer-visiting path)))
      (cond ((not buffer))
            ((buffer-modified-p buffer) (display-warning 'ide-companion warning))
            ;; Boundaries around it: the user undoes the reread as one change.
            (t (with-current-buffer buffer (undo-boundary) (revert-buffer t t t) (undo-boundary)))))
    :null))

(defun ide-companion--current-diff ()
  "The diff the current buffer belongs to, else the only open diff, else nil."
  (or (and ide-companion--diff-id (gethash ide-companion--diff-id ide-companion--diffs))
      (and (boundp 'ediff-buffer-B) (buffer-live-p ediff-buffer-B)
           (let ((id (buffer-local-value 'ide-companion--diff-id ediff-buffer-B)))
             (and id (gethash id ide-companion--diffs))))
      (let ((all (hash-table-values ide-companion--diffs)))
        (if (not (cdr all)) (car all)
          (let ((choices (mapcar (lambda (d) (cons (format "%s (%s)" (ide-companion--diff-path d) (ide-companion--diff-id d)) d))
                                 all)))
            (cdr (assoc (completing-read "Diff: " choices nil t) choices)))))))

(defvar ide-companion-proposal-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'ide-companion-accept)
    (define-key map (kbd "C-c C-k") #'ide-companion-reject)
    (define-key map [remap save-buffer] #'ide-companion-accept)
    (define-key map [remap ediff-quit] #'ide-companion-ediff-quit)
    map)
  "Keymap of `ide-companion-proposal-mode': accept, reject, decide on quit.")

(define-minor-mode ide-companion-proposal-mode
  "Minor mode of a proposed edit's buffer and of its ediff control panel.
Edit the proposal freely, then accept it as it stands with
\[ide-companion-accept] (or \[save-buffer]), or reject it with
\[ide-companion-reject].  Killing the buffer rejects too; ediff's own quit
asks whether to reject it (else the agent would wait for an answer).

\{ide-companion-proposal-mode-map}"
  :lighter " Proposal"
  :keymap ide-companion-proposal-mode-map)

(provide 'ide-companion-diff)
;;; ide-companion-diff.el ends here
