;;; ide-companion-tests.el --- ERT tests of ide-companion's protocol side  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run in batch (editors/emacs/test/ert.test.ts does):
;;   emacs --batch -Q -L editors/emacs -l ert -l editors/emacs/test/ide-companion-tests.el \
;;         -f ert-run-tests-batch-and-exit
;; These tests cover what needs no host: line framing, requests and their
;; answers, diff buffers (bytes exact), positions, diagnostics, reverting.
;; The host and the Gemini CLI are covered by the tmux tests.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'flymake)
(require 'ide-companion)

;; Emacs 30's (and Debian's patched 28's) user option, special here on 27 too,
;; so that the tests' `let' of it reaches `ide-companion--trusted'.
(defvar trusted-content)

;; Emacs 27's batch frame is 9 lines, too small for ediff's three windows
;; (28 and later start with 25).
(when noninteractive (set-frame-size (selected-frame) 80 25))

(defvar ide-companion-tests--sent nil
  "Messages sent to the host (each line parsed back), oldest first.")

(defmacro ide-companion-tests--with-wire (&rest body)
  "Run BODY as if a host were ready, recording the lines that would be sent."
  (declare (indent 0) (debug t))
  `(let ((ide-companion-tests--sent nil)
         (ide-companion--ready (list :type "ready" :port 1 :env nil))
         ;; As the host gives them in `ready' (diffWords.ts hostGoneWords, for "emacs").
         (ide-companion--words
          '(:acceptUnsent "the companion is not running, so the accept reached no one; your proposal for {file} is kept in its buffer (C-x C-w saves it)"))
         (ide-companion--diffs (make-hash-table :test #'equal))
         (ide-companion--held (make-hash-table :test #'equal))
         (ide-companion--kept-at-death (make-hash-table :test #'equal))
         (ide-companion--focused nil)
         (ide-companion--roots (list (directory-file-name temporary-file-directory)))
         (ide-companion-diff-layout 'side-by-side))
     (cl-letf (((symbol-function 'ide-companion--send-line)
                (lambda (line)
                  (should (string-suffix-p "\n" line))
                  (should (= 1 (cl-count ?\n line)))
                  (setq ide-companion-tests--sent
                        (append ide-companion-tests--sent (list (ide-companion--parse (substring line 0 -1))))))))
       ,@body)))

(defmacro ide-companion-tests--with-dir (var &rest body)
  "Bind VAR to a fresh directory for BODY, deleted afterwards."
  (declare (indent 1) (debug t))
  `(let ((,var (file-name-as-directory (file-truename (make-temp-file "ide-companion-ert-" t)))))
     (unwind-protect (progn ,@body)
       (delete-directory ,var t))))

(defun ide-companion-tests--write (file text)
  "Write TEXT to FILE byte for byte (as UTF-8, no newline conversion)."
  (let ((coding-system-for-write 'utf-8-unix))
    (with-temp-file file (insert text))))

(defun ide-companion-tests--read-bytes (file)
  "FILE's bytes, decoded as UTF-8 without newline conversion."
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8-unix)) (insert-file-contents file))
    (buffer-string)))

(defun ide-companion-tests--sent-of-type (type)
  "The recorded messages of TYPE."
  (cl-remove-if-not (lambda (m) (equal (plist-get m :type) type)) ide-companion-tests--sent))

(defun ide-companion-tests--response (id)
  "The recorded response to request ID."
  (cl-find-if (lambda (m) (and (equal (plist-get m :type) "response") (equal (plist-get m :id) id)))
              ide-companion-tests--sent))

(defun ide-companion-tests--show (id path new &optional original)
  "Answer a showDiff request ID for PATH with NEW and ORIGINAL content."
  (ide-companion--answer id "showDiff" (list :diffId (format "d%s" id) :filePath path
                                            :newContent new :originalContent original)))

;;;; Framing

(ert-deftest ide-companion-tests-filter-splits-lines-across-chunks ()
  "A line split over reads is handled once, whole; several lines in a read each."
  (ide-companion-tests--with-wire
    (let ((ide-companion--process 'host) (ide-companion--partial nil) (handled nil))
      (cl-letf (((symbol-function 'ide-companion--handle-message) (lambda (m) (push m handled))))
        (ide-companion--filter 'host "{\"type\":\"sessions\",")
        (should (null handled))
        (ide-companion--filter 'host "\"count\":2,\"x\":\"é✓\"}\n{\"type\":\"a\"}\n{\"ty")
        (should (equal (reverse handled) '((:type "sessions" :count 2 :x "é✓") (:type "a"))))
        (ide-companion--filter 'host "pe\":\"b\"}\n")
        (should (equal (car handled) '(:type "b")))
        ;; Output of a process that is not the host is ignored.
        (ide-companion--filter 'other "{\"type\":\"c\"}\n")
        (should (equal (car handled) '(:type "b")))))))

(ert-deftest ide-companion-tests-bad-line-changes-nothing ()
  "A line that is not JSON is logged; nothing is sent and no error escapes."
  (ide-companion-tests--with-wire
    (ide-companion--handle-line "not json {")
    (ide-companion--handle-line "")
    (should (null ide-companion-tests--sent))
    (should (string-match-p "cannot handle a host line"
                            (with-current-buffer " *ide-companion-log*" (buffer-string))))))

(ert-deftest ide-companion-tests-json-string ()
  "A string's JSON literal is exact: quotes, backslashes, controls, multibyte."
  (dolist (text '("" "plain" "q\"b\\s" "tab\t nl\n cr\r nul\0" "é ✓ 😀"))
    (should (equal (ide-companion--parse (format "{\"t\":%s}" (ide-companion--json-string text)))
                   (list :t text)))))

(ert-deftest ide-companion-tests-json-line-round-trip ()
  "What `ide-companion--send' writes is one line of JSON the host can read."
  (let* ((message (list :type "diffAccepted" :diffId "x" :content "a\r\nb\n\"é\" \0 end"))
         (line (concat (json-serialize message) "\n")))
    (should (= 1 (cl-count ?\n line)))
    (should (equal (ide-companion--parse (substring line 0 -1)) message))
    ;; Native JSON refuses \\u0000; the fallback must keep the rest exact.
    (should (equal (ide-companion--parse "{\"a\":\"x\\u0000y\\\\u0000\",\"b\":null,\"c\":false,\"d\":[1]}")
                   '(:a "x\0y\\u0000" :b nil :c :false :d (1))))))

;;;; Ready and the terminal environment

(ert-deftest ide-companion-tests-ready-sets-and-restore-removes-env ()
  "Ready puts the host's env in `process-environment'; stopping restores it."
  (let ((process-environment (cons "GEMINI_CLI_IDE_PID=old" (copy-sequence process-environment)))
        (ide-companion--saved-env nil))
    (ide-companion-tests--with-wire
      (cl-letf (((symbol-function 'ide-companion--check-focus) #'ignore))
        (ide-companion--handle-message
         (list :type "ready" :port 41234 :discoveryFile "/tmp/x.json"
               :env (list :GEMINI_CLI_IDE_SERVER_PORT "41234" :GEMINI_CLI_IDE_PID "4242")))
        (should (equal (getenv "GEMINI_CLI_IDE_SERVER_PORT") "41234"))
        (should (equal (getenv "GEMINI_CLI_IDE_PID") "4242"))
        ;; A shell started now inherits it.
        (should (equal (car (process-lines "sh" "-c" "echo $GEMINI_CLI_IDE_SERVER_PORT")) "41234"))
        (should-not (member "GEMINI_CLI_IDE_SERVER_PORT=41234" (ide-companion--environment-without-companion)))
        (ide-companion--restore-env)
        (should (null (getenv "GEMINI_CLI_IDE_SERVER_PORT")))
        (should (equal (getenv "GEMINI_CLI_IDE_PID") "old"))))))

;;;; Context

(ert-deftest ide-companion-tests-position-counts-characters ()
  "Line and character are 1-based and count characters, not bytes."
  (with-temp-buffer
    (insert "héllo\nwörld ✓ x\n")
    (goto-char (point-min))
    (should (equal (ide-companion--position) '(:line 1 :character 1)))
    (search-forward "✓ ")
    (should (equal (ide-companion--position) '(:line 2 :character 9)))
    (narrow-to-region (line-beginning-position) (point-max))
    (should (equal (ide-companion--position) '(:line 2 :character 9)))))

(ert-deftest ide-companion-tests-focus-and-cursor-events ()
  "Focusing a file buffer sends focus; a move sends cursor; a region its other end.
Repeats are the host's to drop; the region's text the host's to read."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "a.txt" dir)))
      (ide-companion-tests--write file "one\ntwo ✓\n")
      (ide-companion-tests--with-wire
        (let ((buffer (find-file-noselect file)))
          (unwind-protect
              (save-window-excursion
                (switch-to-buffer buffer)
                (ide-companion--check-focus)
                (should (equal (car ide-companion-tests--sent)
                               (list :type "focus" :path file :cursor '(:line 1 :character 1))))
                (goto-char (point-max))
                (forward-line -1)
                (end-of-line)
                (ide-companion--flush-cursor)
                (should (equal (ide-companion-tests--sent-of-type "cursor")
                               (list (list :type "cursor" :path file :cursor '(:line 2 :character 6)))))
                (let ((transient-mark-mode t))
                  (set-mark (line-beginning-position))
                  (activate-mark)
                  (ide-companion--flush-cursor)
                  (should (equal (car (last ide-companion-tests--sent))
                                 (list :type "cursor" :path file :cursor '(:line 2 :character 6)
                                       :anchor '(:line 2 :character 1))))
                  (should (equal (ide-companion--selected-text '(:maxChars 100)) '(:text "two ✓")))
                  (should (equal (ide-companion--selected-text '(:maxChars 2)) '(:text "tw")))))
            (kill-buffer buffer)))))))

(ert-deftest ide-companion-tests-region-direction ()
  "A region is sent as point and its other end, whichever comes first."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "r.txt" dir)))
      (ide-companion-tests--write file "one\ntwo ✓\nthree\n")
      (ide-companion-tests--with-wire
        (let ((buffer (find-file-noselect file)))
          (unwind-protect
              (save-window-excursion
                (switch-to-buffer buffer)
                (let ((transient-mark-mode t))
                  ;; Point on line 3, mark set, up a line: point at the start.
                  (goto-char (point-min))
                  (forward-line 2)
                  (set-mark (point))
                  (forward-line -1)
                  (activate-mark)
                  (ide-companion--check-focus)
                  (should (equal (car (last ide-companion-tests--sent))
                                 (list :type "focus" :path file :cursor '(:line 2 :character 1)
                                       :anchor '(:line 3 :character 1))))
                  (should (equal (ide-companion--selected-text '(:maxChars 100)) '(:text "two ✓\n")))
                  ;; C-x C-x: the same text, point at its end now.
                  (exchange-point-and-mark)
                  (ide-companion--flush-cursor)
                  (should (equal (car (last ide-companion-tests--sent))
                                 (list :type "cursor" :path file :cursor '(:line 3 :character 1)
                                       :anchor '(:line 2 :character 1))))
                  ;; An empty active region (`use-empty-active-region') has no text.
                  (let ((use-empty-active-region t))
                    (set-mark (point))
                    (should (equal (ide-companion--selected-text '(:maxChars 100)) '(:text :null))))
                  ;; No region: no anchor, no text.
                  (deactivate-mark)
                  (ide-companion--flush-cursor)
                  (should (equal (car (last ide-companion-tests--sent))
                                 (list :type "cursor" :path file :cursor '(:line 3 :character 1))))
                  (should (equal (ide-companion--selected-text '(:maxChars 100)) '(:text :null)))))
            (kill-buffer buffer)))))))

(ert-deftest ide-companion-tests-post-command-only-flags ()
  "Commands only set a flag; the idle timer reports once for many commands."
  (ide-companion-tests--with-wire
    (let ((ide-companion--moved nil) (reports 0))
      (cl-letf (((symbol-function 'ide-companion--flush-cursor) (lambda () (setq reports (1+ reports)))))
        (dotimes (_ 100) (ide-companion--post-command))
        (should ide-companion--moved)
        (should (= reports 0))
        (ide-companion--on-idle)
        (ide-companion--on-idle)
        (should (= reports 1))
        (should-not ide-companion--moved)))))

(ert-deftest ide-companion-tests-trust-reported-only-when-configured ()
  "Trust is not reported without `trusted-content'; when set, it goes to the host as set.
Whether it covers the roots is the host's rule: packages/server/test/workspaceTrust.test.ts."
  (let ((ide-companion--roots '("/p/a")))
    (should (null (ide-companion--trusted)))
    (let ((trusted-content :all)) (should (equal (ide-companion--trusted) "all")))
    (let ((trusted-content '("/p/"))) (should (equal (ide-companion--trusted) ["/p/"])))
    (let ((trusted-content '("/q/" "~/r/" other))) (should (equal (ide-companion--trusted) (vector "/q/" (expand-file-name "~/r/")))))))

;;;; Diffs

(ert-deftest ide-companion-tests-accept-carries-edits-byte-for-byte ()
  "The edited proposal reaches diffAccepted exactly: CRLF, no final newline, multibyte."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "a.txt" dir))
          (proposal "line 1\r\nlïne 2 ✓\r\nno final newline"))
      (ide-companion-tests--with-wire
        (ide-companion-tests--show 1 file proposal "old\n")
        (should (equal (ide-companion-tests--response 1) '(:type "response" :id 1 :result nil)))
        (let ((diff (gethash "d1" ide-companion--diffs)))
          (with-current-buffer (ide-companion--diff-proposal diff)
            (should (equal (buffer-string) proposal))
            (should ide-companion-proposal-mode)
            (ide-companion--answer 2 "diffText" '(:diffId "d1"))
            (should (equal (ide-companion-tests--response 2) '(:type "response" :id 2 :result (:text nil))))
            (goto-char (point-max))
            (insert " — edited\r\n")
            (ide-companion--answer 3 "diffText" '(:diffId "d1"))
            (should (equal (plist-get (plist-get (ide-companion-tests--response 3) :result) :text)
                           (concat proposal " — edited\r\n")))
            (ide-companion-accept))
          (should (equal (ide-companion-tests--sent-of-type "diffAccepted")
                         (list (list :type "diffAccepted" :diffId "d1" :content (concat proposal " — edited\r\n")))))
          (should-not (get-buffer-window (ide-companion--diff-proposal diff) t))
          (should-not (buffer-live-p (ide-companion--diff-original diff)))
          (should (= 0 (hash-table-count ide-companion--diffs)))
          ;; The proposal stays, hidden, until the host says it took the accept.
          (should (buffer-live-p (ide-companion--diff-proposal diff)))
          (ide-companion--answer 4 "closeDiff" '(:diffId "d1" :reason "accepted"))
          (should (equal (ide-companion-tests--response 4) '(:type "response" :id 4 :result nil)))
          (should-not (buffer-live-p (ide-companion--diff-proposal diff)))
          (should (= 0 (hash-table-count ide-companion--held))))))))

;; Issue 37: the accept sent, the host gone before it took it: the proposal is kept, once.
(ert-deftest ide-companion-tests-accept-not-taken-is-kept-when-the-host-dies ()
  "An accept the host never acknowledged comes back as a kept buffer when it dies."
  (ide-companion-tests--with-wire
    (ide-companion-tests--show 1 "/p/a.txt" "new\n" "old\n")
    (let ((diff (gethash "d1" ide-companion--diffs)))
      (with-current-buffer (ide-companion--diff-proposal diff) (insert "edited ") (ide-companion-accept))
      (should (equal (ide-companion--end-all-diffs t) '("a.txt")))
      (let ((kept (ide-companion--diff-proposal diff)))
        (should (buffer-live-p kept))
        (should (equal (with-current-buffer kept (buffer-string)) "edited new\n"))
        (should-not (string-prefix-p " " (buffer-name kept)))
        (should-not (buffer-local-value 'ide-companion-proposal-mode kept))
        (should (= 0 (hash-table-count ide-companion--held)))
        ;; The next host shows its copy under the same id (the host wrote it, then died): kept and said once.
        (let ((buffers (length (buffer-list))))
          (ide-companion--answer 2 "showDiff" '(:diffId "d1" :filePath "/p/a.txt" :newContent "edited new\n"
                                                :originalContent "old\n" :kept t))
          (should (equal (ide-companion-tests--response 2) '(:type "response" :id 2 :result nil)))
          (should (= buffers (length (buffer-list))))
          (should (= 0 (hash-table-count ide-companion--diffs))))
        (let ((inhibit-message t) (messages (with-current-buffer (messages-buffer) (buffer-size))))
          (ide-companion--answer 3 "closeDiff" '(:diffId "d1" :reason "sessionClosed" :message "kept again"))
          (should (= messages (with-current-buffer (messages-buffer) (buffer-size)))))
        (should (= 0 (hash-table-count ide-companion--kept-at-death)))
        (should (buffer-live-p kept))
        (kill-buffer kept)))))

(ert-deftest ide-companion-tests-unedited-accept-omits-content ()
  "Accepting an unedited proposal (a new file: empty original) sends no content."
  (ide-companion-tests--with-wire
    (ide-companion-tests--show 1 "/nonexistent/new.txt" "new\n")
    (let ((diff (gethash "d1" ide-companion--diffs)))
      (with-current-buffer (ide-companion--diff-original diff)
        (should (equal (buffer-string) ""))
        (should buffer-read-only))
      (with-current-buffer (ide-companion--diff-proposal diff)
        (ide-companion-accept)))
    (should (equal (ide-companion-tests--sent-of-type "diffAccepted") '((:type "diffAccepted" :diffId "d1"))))))

(ert-deftest ide-companion-tests-reject-by-command-and-by-killing ()
  "C-c C-k rejects; killing the proposal buffer rejects; each once."
  (ide-companion-tests--with-wire
    (ide-companion-tests--show 1 "/p/a.txt" "a\n" "b\n")
    (ide-companion-tests--show 2 "/p/b.txt" "c\n" "d\n")
    (with-current-buffer (ide-companion--diff-proposal (gethash "d1" ide-companion--diffs))
      (funcall (key-binding (kbd "C-c C-k"))))
    (kill-buffer (ide-companion--diff-proposal (gethash "d2" ide-companion--diffs)))
    (should (equal (ide-companion-tests--sent-of-type "diffRejected")
                   '((:type "diffRejected" :diffId "d1") (:type "diffRejected" :diffId "d2"))))
    (should (= 0 (hash-table-count ide-companion--diffs)))))

(ert-deftest ide-companion-tests-close-diff-sends-no-outcome ()
  "closeDiff closes the buffers without diffAccepted or diffRejected."
  (ide-companion-tests--with-wire
    (ide-companion-tests--show 1 "/p/a.txt" "a\n" "b\n")
    (let ((diff (gethash "d1" ide-companion--diffs)))
      (ide-companion--answer 2 "closeDiff" '(:diffId "d1" :reason "closedByCli"))
      (should (equal (ide-companion-tests--response 2) '(:type "response" :id 2 :result nil)))
      (should-not (buffer-live-p (ide-companion--diff-proposal diff)))
      (should (null (ide-companion-tests--sent-of-type "diffRejected")))
      (should (null (ide-companion-tests--sent-of-type "diffAccepted"))))))

(ert-deftest ide-companion-tests-diffs-of-two-sessions-do-not-collide ()
  "Two diffs of one file (two CLI sessions) keep their own buffers and outcomes."
  (ide-companion-tests--with-wire
    (ide-companion-tests--show 1 "/p/a.txt" "from session one\n" "x\n")
    (ide-companion-tests--show 2 "/p/a.txt" "from session two\n" "x\n")
    (let ((one (gethash "d1" ide-companion--diffs))
          (two (gethash "d2" ide-companion--diffs)))
      (should-not (eq (ide-companion--diff-proposal one) (ide-companion--diff-proposal two)))
      (with-current-buffer (ide-companion--diff-proposal two) (ide-companion-reject))
      (with-current-buffer (ide-companion--diff-proposal one) (ide-companion-accept))
      (should (equal (ide-companion-tests--sent-of-type "diffRejected") '((:type "diffRejected" :diffId "d2"))))
      (should (equal (ide-companion-tests--sent-of-type "diffAccepted") '((:type "diffAccepted" :diffId "d1")))))))

(ert-deftest ide-companion-tests-ediff-layout ()
  "With ediff the proposal is ediff's buffer B; accepting ends the ediff session."
  (ide-companion-tests--with-wire
    (let ((ide-companion-diff-layout 'ediff))
      (ide-companion-tests--show 1 "/p/a.txt" "new\n" "old\n")
      (let* ((diff (gethash "d1" ide-companion--diffs))
             (control (ide-companion--diff-control diff)))
        (should (buffer-live-p control))
        (with-current-buffer control
          (should (eq ediff-buffer-B (ide-companion--diff-proposal diff)))
          ;; From the control buffer the command finds the diff too.
          (ide-companion-accept))
        (should-not (buffer-live-p control))
        (should (equal (ide-companion-tests--sent-of-type "diffAccepted") '((:type "diffAccepted" :diffId "d1"))))))))

(defmacro ide-companion-tests--last-message (&rest body)
  "Run BODY and return the last message it showed (batch mode keeps none)."
  (declare (indent 0) (debug t))
  `(let (last)
     (cl-letf* ((message-function (symbol-function 'message))
                ((symbol-function 'message)
                 (lambda (format-string &rest args)
                   (setq last (apply #'format-message format-string args))
                   (apply message-function format-string args))))
       ,@body)
     last))

(ert-deftest ide-companion-tests-accept-not-sent-keeps-the-proposal ()
  "An accept that cannot be sent (the host gone) leaves the proposal, edits and all, as a plain buffer."
  (ide-companion-tests--with-wire
    (ide-companion-tests--show 1 "/p/a.txt" "new\n" "old\n")
    (let ((diff (gethash "d1" ide-companion--diffs)))
      (with-current-buffer (ide-companion--diff-proposal diff)
        (goto-char (point-max))
        (insert "edited\n")
        (cl-letf (((symbol-function 'ide-companion--send-line) #'ignore))
          (should (string-match-p "the accept reached no one; your proposal for a\\.txt is kept in its buffer"
                                  (ide-companion-tests--last-message (ide-companion-accept))))))
      (should (= 0 (hash-table-count ide-companion--diffs)))
      (should-not (buffer-live-p (ide-companion--diff-original diff)))
      (with-current-buffer (ide-companion--diff-proposal diff)
        (should (equal (buffer-string) "new\nedited\n"))
        (should-not ide-companion-proposal-mode)
        (kill-buffer)))))

(ert-deftest ide-companion-tests-bad-show-diff-is-an-error-response ()
  "A showDiff without a path is answered with an error and opens nothing."
  (ide-companion-tests--with-wire
    (ide-companion--answer 1 "showDiff" '(:diffId "d1" :newContent "x"))
    (should (stringp (plist-get (ide-companion-tests--response 1) :error)))
    (should (= 0 (hash-table-count ide-companion--diffs)))
    (ide-companion--answer 2 "noSuchAction" nil)
    (should (string-match-p "does not answer" (plist-get (ide-companion-tests--response 2) :error)))))

(ert-deftest ide-companion-tests-reload-reverts-but-never-loses-edits ()
  "The host's reload reverts an unmodified buffer without a prompt; a modified one is kept and the host's words shown.
The watch for the write (and a write seen half done) is the companion's: packages/server/test/diffReload.test.ts."
  (ide-companion-tests--with-dir dir
    (let* ((clean (expand-file-name "clean.txt" dir))
           (dirty (expand-file-name "dirty.txt" dir)))
      (ide-companion-tests--write clean "before\n")
      (ide-companion-tests--write dirty "before\n")
      (let ((clean-buffer (find-file-noselect clean))
            (dirty-buffer (find-file-noselect dirty)))
        (unwind-protect
            (ide-companion-tests--with-wire
              (with-current-buffer dirty-buffer (goto-char (point-max)) (insert "unsaved\n"))
              (ide-companion-tests--write clean "after\n")
              (ide-companion-tests--write dirty "after\n")
              (ide-companion--answer 1 "reload" (list :path clean :unsavedWarning "unused"))
              (ide-companion--answer 2 "reload" (list :path dirty :unsavedWarning "dirty.txt was written but was not reloaded"))
              (should (equal (ide-companion-tests--response 1) '(:type "response" :id 1 :result nil)))
              (should (equal (with-current-buffer clean-buffer (buffer-string)) "after\n"))
              (should-not (buffer-modified-p clean-buffer))
              (should (equal (with-current-buffer dirty-buffer (buffer-string)) "before\nunsaved\n"))
              (should (buffer-modified-p dirty-buffer))
              (should (string-match-p "dirty.txt was written but was not reloaded"
                                      (with-current-buffer "*Warnings*" (buffer-string))))
              (ide-companion--answer 3 "reload" (list :path clean))
              (should (stringp (plist-get (ide-companion-tests--response 3) :error))))
          (with-current-buffer dirty-buffer (set-buffer-modified-p nil))
          (kill-buffer clean-buffer)
          (kill-buffer dirty-buffer))))))

;;;; Capabilities

(ert-deftest ide-companion-tests-open-file-at-line-and-column ()
  "openFile visits the file at 1-based line and character."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "o.txt" dir)))
      (ide-companion-tests--write file "one\ntwö three\n")
      (ide-companion-tests--with-wire
        (save-window-excursion
          (ide-companion--answer 1 "openFile" (list :path file :line 2 :column 4))
          (should (equal (ide-companion-tests--response 1) '(:type "response" :id 1 :result nil)))
          (should (equal buffer-file-name file))
          (should (equal (ide-companion--position) '(:line 2 :character 4)))
          (kill-buffer))
        (ide-companion--answer 2 "openFile" '(:path "relative.txt"))
        (should (plist-get (ide-companion-tests--response 2) :error))))))

(ert-deftest ide-companion-tests-open-editors-dirty-and-save ()
  "getOpenEditors lists file buffers; checkDocumentDirty and saveDocument follow the buffer."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "e.py" dir))
          (other (expand-file-name "not-open.txt" dir)))
      (ide-companion-tests--write file "x = 1\n")
      (let ((buffer (find-file-noselect file)))
        (unwind-protect
            (ide-companion-tests--with-wire
              (setq ide-companion--focused buffer)
              (ide-companion--answer 1 "getOpenEditors" nil)
              (let ((entry (cl-find file (append (plist-get (plist-get (ide-companion-tests--response 1) :result) :editors) nil)
                                    :key (lambda (e) (plist-get e :path)) :test #'equal)))
                (should (equal entry (list :path file :isActive t :isDirty :false :languageId "python" :lineCount 1))))
              (with-current-buffer buffer (goto-char (point-max)) (insert "y = 2\n"))
              (ide-companion--answer 2 "checkDocumentDirty" (list :path file))
              (should (equal (plist-get (ide-companion-tests--response 2) :result)
                             '(:isOpen t :isDirty t :readOnly :false :changedOnDisk :false)))
              (ide-companion--answer 3 "checkDocumentDirty" (list :path other))
              (should (equal (plist-get (ide-companion-tests--response 3) :result)
                             '(:isOpen :false :isDirty :false :readOnly :false :changedOnDisk :false)))
              ;; A read-only buffer says so (the host refuses to write through it).
              (with-current-buffer buffer (setq buffer-read-only t))
              (ide-companion--answer 6 "checkDocumentDirty" (list :path file))
              (should (eq (plist-get (plist-get (ide-companion-tests--response 6) :result) :readOnly) t))
              (with-current-buffer buffer (setq buffer-read-only nil))
              (ide-companion--answer 4 "saveDocument" (list :path file))
              (should (equal (plist-get (ide-companion-tests--response 4) :result) '(:saved t)))
              (should (equal (ide-companion-tests--read-bytes file) "x = 1\ny = 2\n"))
              (ide-companion--answer 5 "saveDocument" (list :path other))
              (should (eq (plist-get (plist-get (ide-companion-tests--response 5) :result) :saved) :false)))
          (kill-buffer buffer))))))

(ert-deftest ide-companion-tests-save-never-overwrites-a-file-changed-on-disk ()
  "saveDocument refuses (without a prompt) when the file changed on disk."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "c.txt" dir)))
      (ide-companion-tests--write file "disk 1\n")
      (let ((buffer (find-file-noselect file)))
        (unwind-protect
            (ide-companion-tests--with-wire
              (with-current-buffer buffer (insert "edit\n"))
              (ide-companion-tests--write file "disk 2\n")
              (set-file-times file (time-add nil 2))
              (ide-companion--answer 1 "saveDocument" (list :path file))
              (should (eq (plist-get (plist-get (ide-companion-tests--response 1) :result) :saved) :false))
              (should (equal (ide-companion-tests--read-bytes file) "disk 2\n")))
          (with-current-buffer buffer (set-buffer-modified-p nil))
          (kill-buffer buffer))))))

(ert-deftest ide-companion-tests-selection ()
  "getSelection gives the active region of the focused file, positions 1-based."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "s.txt" dir)))
      (ide-companion-tests--write file "abc\ndéf ghi\n")
      (let ((buffer (find-file-noselect file)))
        (unwind-protect
            (ide-companion-tests--with-wire
              (ide-companion--answer 1 "getSelection" nil)
              (should (equal (plist-get (ide-companion-tests--response 1) :result) '(:selection nil)))
              (setq ide-companion--focused buffer)
              (ide-companion--answer 3 "getSelection" nil)
              (should (equal (plist-get (ide-companion-tests--response 3) :result) '(:selection nil)))
              (setq ide-companion--focused buffer)
              (with-current-buffer buffer
                (let ((transient-mark-mode t))
                  (goto-char (point-min))
                  (forward-line 1)
                  (set-mark (point))
                  (forward-char 3)
                  (activate-mark)
                  (ide-companion--answer 2 "getSelection" nil)))
              (should (equal (plist-get (ide-companion-tests--response 2) :result)
                             (list :selection (list :path file :text "déf" :start '(:line 2 :character 1) :end '(:line 2 :character 4))))))
          (kill-buffer buffer))))))

(defun ide-companion-tests--flymake-backend (report-fn &rest _)
  "A flymake backend reporting one error and one note through REPORT-FN."
  (funcall report-fn
           (list (flymake-make-diagnostic (current-buffer) 5 8 :error "bad thing")
                 (flymake-make-diagnostic (current-buffer) 1 2 :note "a note"))))

(ert-deftest ide-companion-tests-flymake-diagnostics ()
  "diagnosticItems hands over flymake's diagnostics: 1-based ranges, type categories."
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "f.txt" dir)))
      (ide-companion-tests--write file "abc\ndef\n")
      (let ((buffer (find-file-noselect file)))
        (unwind-protect
            (ide-companion-tests--with-wire
              (with-current-buffer buffer
                (setq-local flymake-diagnostic-functions (list #'ide-companion-tests--flymake-backend))
                (flymake-mode 1)
                (flymake-start)
                (let ((deadline (+ (float-time) 5)))
                  (while (and (< (float-time) deadline) (< (length (flymake-diagnostics)) 2))
                    (accept-process-output nil 0.05))))
              ;; The host shapes them (severity names, the file asked, the workspace: diagnosticItems.test.ts).
              (ide-companion--answer 1 "diagnosticItems" nil)
              (let ((items (plist-get (plist-get (ide-companion-tests--response 1) :result) :items)))
                (should (equal (length items) 2))
                (should (equal (sort (mapcar (lambda (d) (plist-get d :severity)) items) #'string<) '("flymake-error" "flymake-note")))
                (let ((err (cl-find "flymake-error" items :key (lambda (d) (plist-get d :severity)) :test #'equal)))
                  (should (equal (mapcar (lambda (key) (plist-get err key)) '(:kind :path :message :start :end :source))
                                 (list "emacs" file "bad thing" '(:line 2 :character 1) '(:line 2 :character 4)
                                       "ide-companion-tests--flymake-backend"))))))
          (kill-buffer buffer))))))

(defun ide-companion-tests--load-flycheck ()
  "Load flycheck from Debian's elpa-flycheck (or the `load-path'); nil if absent.
Debian compiles it for the system's Emacs only: an older one loads the sources."
  (dolist (dir (file-expand-wildcards
                (if (< emacs-major-version 28) "/usr/share/emacs/site-lisp/elpa-src/*"
                  "/usr/share/emacs/site-lisp/elpa/*")))
    (add-to-list 'load-path dir))
  (require 'flycheck nil t))

(ert-deftest ide-companion-tests-flycheck-diagnostics ()
  "diagnosticItems hands over flycheck's errors with their ranges, levels and ids."
  (skip-unless (ide-companion-tests--load-flycheck))
  (ide-companion-tests--with-dir dir
    (let ((file (expand-file-name "g.txt" dir)))
      (ide-companion-tests--write file "abc\ndéf ghi\n")
      (eval '(flycheck-define-generic-checker 'ide-companion-tests-checker
               "A checker standing in for a linter."
               :start (lambda (checker callback)
                        (funcall callback 'finished
                                 (list (flycheck-error-new-at 2 5 'warning "careful" :checker checker :id "W1"
                                                              :end-line 2 :end-column 8))))
               :modes '(text-mode fundamental-mode))
            t)
      (let ((buffer (find-file-noselect file)))
        (unwind-protect
            (ide-companion-tests--with-wire
              (with-current-buffer buffer
                (setq-local flycheck-checkers '(ide-companion-tests-checker))
                (flycheck-mode 1)
                (flycheck-buffer)
                (let ((deadline (+ (float-time) 5)))
                  (while (and (< (float-time) deadline) (null flycheck-current-errors))
                    (accept-process-output nil 0.05))))
              (ide-companion--answer 1 "diagnosticItems" nil)
              (let ((item (car (plist-get (plist-get (ide-companion-tests--response 1) :result) :items))))
                (should (equal (mapcar (lambda (key) (plist-get item key)) '(:kind :path :start :end :severity :message :source :code))
                               (list "emacs" file '(:line 2 :character 5) '(:line 2 :character 8)
                                     "warning" "careful" "ide-companion-tests-checker" "W1")))))
          (kill-buffer buffer))))))

;;;; Starting

(ert-deftest ide-companion-tests-says-clearly-when-node-is-missing ()
  "Without Node.js the start fails with a sentence naming the fix; nothing runs."
  (let ((ide-companion-node-program "no-such-node-program")
        (ide-companion--process nil)
        (ide-companion--last-error nil))
    (let ((problem (ide-companion--start)))
      (should (string-match-p "Node.js was not found" problem))
      (should (string-match-p "ide-companion-node-program" problem))
      (should (null ide-companion--process))
      (should (string-match-p "not running: Node.js was not found" (ide-companion--status-text))))))

(ert-deftest ide-companion-tests-says-clearly-when-node-is-too-old ()
  "An old Node.js is named with its version."
  (ide-companion-tests--with-dir dir
    (let ((fake (expand-file-name "node" dir)))
      (with-temp-file fake (insert "#!/bin/sh\necho v18.19.0\n"))
      (set-file-modes fake #o755)
      (let ((ide-companion-node-program fake))
        (should (string-match-p "Node.js v18.19.0 is too old" (ide-companion--start-problem)))))))

(ert-deftest ide-companion-tests-host-file-lookup ()
  "The host is the custom file, else host/ beside the package, else the repo's jsonlines."
  (ide-companion-tests--with-dir dir
    (let ((ide-companion--directory (file-name-as-directory (expand-file-name "emacs" dir)))
          (ide-companion-host-file nil)
          ;; No `ide-companion' on PATH (npm test puts the clone's on it): only the folders count here.
          (exec-path nil))
      (make-directory (expand-file-name "jsonlines/host" dir) t)
      (make-directory (expand-file-name "emacs/host" dir) t)
      (should (null (ide-companion--host-file)))
      (ide-companion-tests--write (expand-file-name "jsonlines/host/ide-companion-bridge.mjs" dir) "")
      (should (equal (ide-companion--host-file) (expand-file-name "jsonlines/host/ide-companion-bridge.mjs" dir)))
      (ide-companion-tests--write (expand-file-name "emacs/host/ide-companion-bridge.mjs" dir) "")
      (should (equal (ide-companion--host-file) (expand-file-name "emacs/host/ide-companion-bridge.mjs" dir)))
      (let ((ide-companion-host-file (expand-file-name "missing.mjs" dir)))
        (should (null (ide-companion--host-file)))))))

(ert-deftest ide-companion-tests-gemini-missing-is-explained ()
  "A missing gemini is named with how to install it."
  (let ((ide-companion-gemini-command "no-such-gemini --flag"))
    (should (string-match-p "`no-such-gemini' is not on `exec-path'; install Gemini CLI" (ide-companion--gemini-missing)))
    (should-error (ide-companion-gemini) :type 'user-error)))

(provide 'ide-companion-tests)
;;; ide-companion-tests.el ends here
