;;; ide-companion-options.el --- The options and the shared state  -*- lexical-binding: t; -*-

;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The user's options and the state every part of ide-companion shares.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(defgroup ide-companion nil
  "Gemini CLI's IDE mode: context, diffs and terminals tied to this Emacs."
  :group 'tools
  :prefix "ide-companion-")

(defcustom ide-companion-node-program "node"
  "The Node.js executable that runs the companion host (version 20 or newer)."
  :type 'string)

(defcustom ide-companion-host-file nil
  "The companion host script, or nil to look for it.
nil: host/ beside this package, the repository's, then the installed package's."
  :type '(choice (const :tag "The bundled host" nil) file))

(defcustom ide-companion-gemini-command "gemini"
  "Shell command line that `ide-companion-gemini' runs in a terminal."
  :type 'string)

(defcustom ide-companion-agent-command nil
  "The ACP agent `ide-companion-agent' runs under `ide-companion agent'.
A list: the program and its arguments, e.g. (\"goose\" \"acp\"); nil: asked."
  :type '(repeat string))

(defcustom ide-companion-terminal 'auto
  "The terminal `ide-companion-gemini' opens.
`auto' takes vterm when it is installed, else eat, else term."
  :type '(choice (const :tag "vterm, else eat, else term" auto)
                 (const vterm) (const eat) (const term)))

(defcustom ide-companion-cursor-delay 0.02
  "Seconds of idleness after commands before point and region are reported.
Commands in a row make one report.  Read when `ide-companion-mode' starts."
  :type 'number)

(defcustom ide-companion-diff-layout 'ediff
  "How a proposed edit is shown: with `ediff-buffers', or `side-by-side'."
  :type '(choice (const ediff) (const side-by-side)))

(defcustom ide-companion-agents nil
  "The terminal agents served, a list of agent names.
Of \"gemini\" (always served), \"qwen\", \"claude\", \"copilot\",
\"codex\", \"amp\", \"droid\", \"opencode\", or any other name the
host knows (it refuses an unknown one, naming the known ones); nil:
$IDE_COMPANION_AGENTS, else all.  Read at the next start."
  :type '(repeat (choice (const "gemini") (const "qwen") (const "claude")
                         (const "copilot") (const "codex") (const "amp") (const "droid")
                         (const "opencode") (string :tag "Another agent"))))

(defcustom ide-companion-amp-edit-file nil
  "How Amp's editFile reaches the file.
\"review\": in the diff view, the user accepts, edits or rejects; \"buffer\":
written through the file's buffer as one change the user can undo.  nil:
$IDE_COMPANION_AMP_EDIT, else review.  Read at the next start."
  :type '(choice (const :tag "Default" nil) (const "review") (const "buffer")))

(defcustom ide-companion-ready-hook nil
  "Hook run when the companion host is listening and Gemini CLI can connect."
  :type 'hook)

(defconst ide-companion--directory
  (file-name-directory (or load-file-name (bound-and-true-p byte-compile-current-file) buffer-file-name default-directory))
  "The directory this file was loaded from.")
(defconst ide-companion--min-node-major 20 "The oldest Node.js major version the host runs on.")

(defvar ide-companion--process nil "The running host process, or nil.")
(defvar ide-companion--partial nil "Chunks of the host's unfinished output line, newest first.")
(defvar ide-companion--ready nil "The host's `ready' message as a plist once it listens, else nil.")
(defvar ide-companion--last-error nil "Why the companion last failed to start or stopped, as a sentence.")
(defvar ide-companion--stopping nil "Non-nil while `ide-companion-stop' ends the host on purpose.")
(defvar ide-companion--saved-env nil "Alist of (NAME . VALUE-BEFORE) of the variables set for terminals.")
(defvar ide-companion--roots nil "The workspace roots reported to the companion.")
(defvar ide-companion--focused nil "The file buffer that last had focus.")
(defvar ide-companion--moved nil "Non-nil when a command ran since point was last reported.")
(defvar ide-companion--idle-timer nil "The idle timer that reports point after commands.")
(defvar ide-companion--diffs (make-hash-table :test #'equal) "Open diffs by diff id.")
(defvar ide-companion--held (make-hash-table :test #'equal)
  "Accepted diffs by id, each kept hidden until the host takes the accept.")
(defvar ide-companion--kept-at-death (make-hash-table :test #'equal)
  "Ids of accepts kept when the host died: a next host may show them again.")
(defvar ide-companion--gemini-buffer nil "The terminal of `ide-companion-gemini'.")
(defvar ide-companion--agent-buffer nil "The terminal of `ide-companion-agent'.")

(defvar ide-companion--words nil "The words for when the host is gone, as it gave them in `ready'.")

(defvar-local ide-companion--path nil "The file name last reported for this buffer.")
(defvar-local ide-companion--path-json nil "`ide-companion--path' as a JSON string.")
(defvar-local ide-companion--root nil "This buffer's workspace root once computed.")
(defvar-local ide-companion--diff-id nil "In a diff's buffers, the id of the diff they show.")

(cl-defstruct (ide-companion--diff (:constructor ide-companion--make-diff))
  "A diff proposed by an agent (AGENT: \"Claude Code\"), shown in two buffers."
  id path new-content original proposal control window-config settled agent)

(provide 'ide-companion-options)
;;; ide-companion-options.el ends here
