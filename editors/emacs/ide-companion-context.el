;;; ide-companion-context.el --- What the agent sees: files, focus, point, region, roots  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Reads the editor state (files, focus, point and region, workspace roots)
;; and reports it to the host from Emacs's hooks.

;;; Code:

(require 'ide-companion-host)

(declare-function project-root "project" (project))
(declare-function projectile-project-root "ext:projectile" (&optional dir))
(defvar trusted-content)

(defun ide-companion--file-buffer-p (buffer)
  "Return the file BUFFER visits if it is a local file that exists, else nil."
  (let ((file (buffer-file-name buffer)))
    (and file (not (file-remote-p file)) (not (buffer-local-value 'ide-companion--diff-id buffer))
         (file-exists-p file) file)))

(defun ide-companion--project-root (directory)
  "Return the project root of DIRECTORY (projectile, then project.el), or nil."
  (let ((root (or (and (fboundp 'projectile-project-root) (ignore-errors (projectile-project-root directory)))
                  (let ((project (and (require 'project nil t) (ignore-errors (project-current nil directory)))))
                    ;; Emacs 27's project.el has only `project-roots'.
                    (and project (if (fboundp 'project-root) (project-root project)
                                   (car (with-no-warnings (project-roots project)))))))))
    (and root (directory-file-name (expand-file-name root)))))

(defun ide-companion--initial-roots ()
  "The roots reported at start: the project of `default-directory', or itself."
  (let ((directory (expand-file-name (or (and (not (file-remote-p default-directory)) default-directory) "~/"))))
    (list (or (ide-companion--project-root directory) (directory-file-name directory)))))

(defun ide-companion--note-root (buffer)
  "Add the project root of the file in BUFFER to the roots, telling the host."
  (with-current-buffer buffer
    (unless ide-companion--root
      (setq ide-companion--root (or (ide-companion--project-root default-directory) 'none)))
    (when (and (stringp ide-companion--root) (not (member ide-companion--root ide-companion--roots)))
      (setq ide-companion--roots (append ide-companion--roots (list ide-companion--root)))
      (ide-companion--send (list :type "roots" :roots (vconcat ide-companion--roots))))))

(defun ide-companion--trusted ()
  "Emacs 30's `trusted-content' for the host to judge, or nil when unset."
  (when (and (boundp 'trusted-content) trusted-content)
    (if (eq trusted-content :all) "all"
      (vconcat (mapcar #'expand-file-name (seq-filter #'stringp trusted-content))))))

(defvar-local ide-companion--line-cache nil
  "(POSITION . LINE): a line start and its line number, or nil.
Counting from the last report costs what the cursor moved, not the buffer.")

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
          (list :line (ide-companion--line-number bol) :character (1+ (- (point) bol))))))))

(defvar-local ide-companion--anchor-cache nil
  "(MARK TICK . POSITION): the region's other end and its position.
Extending a region moves point only: its mark's line is not counted again.")

(defun ide-companion--anchor ()
  "The active region's other end (mark) as a position plist, or nil."
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

(defun ide-companion--check-focus (&optional force)
  "Report focus when another file buffer (with FORCE, any) is selected."
  (when ide-companion--ready
    (let* ((buffer (window-buffer (selected-window)))
           (file (and (or force (not (eq buffer ide-companion--focused)))
                      (ide-companion--file-buffer-p buffer))))
      (when file
        (setq ide-companion--focused buffer)
        (ide-companion--note-root buffer)
        (with-current-buffer buffer
          (setq ide-companion--path file
                ide-companion--path-json (ide-companion--json-string file))
          (add-hook 'after-change-functions #'ide-companion--drop-line-cache nil t)
          (let ((anchor (ide-companion--anchor)))
            (ide-companion--send (append (list :type "focus" :path file :cursor (ide-companion--position))
                                         (and anchor (list :anchor anchor))))))))))

(defun ide-companion--report-open-buffers ()
  "Report every file buffer as open, with the time it was last shown."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer (ide-companion--on-find-file))))

(defun ide-companion--flush-cursor ()
  "Report point and the region's other end in the focused file.
The host drops repeats."
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
                     (if anchor (format ",\"anchor\":{\"line\":%d,\"character\":%d}" (plist-get anchor :line) (plist-get anchor :character))
                       "")))))))))

(defun ide-companion--selected-text (params)
  "Answer selectedText: the focused buffer's region text, at most PARAMS' maxChars."
  (let ((buffer ide-companion--focused))
    (list :text (or (and (buffer-live-p buffer)
                         (with-current-buffer buffer
                           (and (use-region-p) (< (region-beginning) (region-end))
                                (buffer-substring-no-properties
                                 (region-beginning) (min (region-end) (+ (region-beginning) (plist-get params :maxChars)))))))
                    :null))))

(defun ide-companion--post-command ()
  "Note that point may have moved: the idle timer reports it after the commands."
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
  "A buffer started visiting a file: report it open, with when it was shown."
  (let ((file (and ide-companion--ready (ide-companion--file-buffer-p (current-buffer)))))
    (when file
      (setq ide-companion--path file)
      (ide-companion--send (append (list :type "open" :path file)
                                   (and buffer-display-time
                                        (list :timestamp (truncate (* 1000 (float-time buffer-display-time))))))))))

(defun ide-companion--on-kill-buffer ()
  "A buffer is being killed."
  (when (and ide-companion--ready ide-companion--path (not ide-companion--diff-id))
    (when (eq (current-buffer) ide-companion--focused) (setq ide-companion--focused nil))
    (ide-companion--send (list :type "close" :path ide-companion--path))))

(defun ide-companion--on-save ()
  "A buffer was written: its file exists on disk now."
  (let ((file (and ide-companion--ready (ide-companion--file-buffer-p (current-buffer)))))
    (when file
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

(provide 'ide-companion-context)
;;; ide-companion-context.el ends here
