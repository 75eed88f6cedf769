;;; agentstatus.el --- Your coding agents' sessions in the mode line -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The agentstatus authors

;; Author: The agentstatus authors
;; Maintainer: The agentstatus authors
;; URL: https://github.com/agentstatus/agentstatus
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, processes
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Shows which of your coding agents (Claude Code, Codex, Gemini CLI,
;; OpenCode, Pi, ...) are working, which are blocked waiting for you,
;; and which are idle, as `statusls' from the agentstatus toolkit sees
;; them:
;;
;; - `agentstatus-mode', a global minor mode, puts the summary in the
;;   mode line, in the words of `statusls --summary':
;;   "1 blocked · 2 working".  Click it for the list.
;; - `agentstatus-list' lists the sessions with their state, age, agent,
;;   workspace, title and why each is where it is ("Bash: rm -rf build",
;;   "question: Which database?", "rate limited"), in the order of
;;   statusls's table: the sessions that need you first.
;; - `agentstatus-blocked-hook' runs when a session becomes blocked:
;;   attach a notification or a sound to it.
;;
;; The package does not read the status directory itself: it runs one
;; `statusls watch --json' process, which follows the directory without
;; polling, applies the protocol's trust rules (a directory that others
;; could write to is refused) and pushes one JSON line per change.  The
;; process is restarted, with a growing delay, when it exits.  Nothing
;; polls: the only timers are that restart and a redraw of the list
;; coalesced after a burst of changes.
;;
;; Requirements: Emacs 28.1 or later and `statusls' on `exec-path'
;; (go install github.com/agentstatus/agentstatus/cmd/...@latest).
;;
;; Installation, Emacs 30 (use-package with :vc):
;;
;;   (use-package agentstatus
;;     :vc (:url "https://github.com/agentstatus/agentstatus"
;;          :lisp-dir "examples/emacs" :rev :newest)
;;     :config (agentstatus-mode 1))
;;
;; Emacs 29 (package-vc-install), once:
;;
;;   (package-vc-install
;;    '(agentstatus :url "https://github.com/agentstatus/agentstatus"
;;                  :lisp-dir "examples/emacs"))
;;
;; then `(agentstatus-mode 1)' in your init file.  Emacs 28: put this
;; file on `load-path', then
;;
;;   (require 'agentstatus)
;;   (agentstatus-mode 1)
;;
;; A notification when an agent waits for you:
;;
;;   (require 'notifications)
;;   (add-hook 'agentstatus-blocked-hook
;;             (lambda ()
;;               (notifications-notify
;;                :title (format "%s needs you"
;;                               (agentstatus-session-get
;;                                agentstatus-blocked-session 'agent))
;;                :body (or (agentstatus-why agentstatus-blocked-session)
;;                          ""))))
;;
;; Settings: `agentstatus-statusls-program', `agentstatus-directory'
;; (default: the directory statusls lists without flags) and
;; `agentstatus-statusls-args' (e.g. ("--local" "--all-hosts") for
;; other machines through ssh).

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'tabulated-list)

(defgroup agentstatus nil
  "Coding agents' sessions, as statusls sees them."
  :group 'tools
  :prefix "agentstatus-"
  :link '(url-link "https://github.com/agentstatus/agentstatus"))

(defcustom agentstatus-statusls-program "statusls"
  "The statusls program: a name looked up on variable `exec-path', or a file."
  :type 'string)

(defcustom agentstatus-directory nil
  "The status directory statusls watches, or nil for statusls's default.
The default is $STATUS_DIR, else the config home's agent-status
directory, as for statusls run without flags.  A directory that
others can write to is refused by statusls, and the mode line says so."
  :type '(choice (const :tag "statusls's default" nil) directory))

(defcustom agentstatus-statusls-args nil
  "Further arguments of `statusls watch --json'.
For example (\"--local\" \"--all-hosts\") to watch other machines
through ssh as well, or (\"--agent\" \"claude-code\") for some agents
only."
  :type '(repeat string))

(defcustom agentstatus-restart-delay 1.0
  "Seconds before the first restart of a statusls watch that exited.
Each further restart in a row waits twice as long, up to
`agentstatus-restart-max-delay'."
  :type 'number)

(defcustom agentstatus-restart-max-delay 60.0
  "The longest wait, in seconds, before restarting statusls watch."
  :type 'number)

(defcustom agentstatus-blocked-hook nil
  "Normal hook run when a session becomes blocked (waits for you).
While it runs, `agentstatus-blocked-session' is the session, which
`agentstatus-session-get' and `agentstatus-why' read.  It runs when a
session enters the blocked state: it appears blocked, changes to it,
or comes back fresh in it.  A session already blocked when the mode
starts counts once; a restart of the watch does not count again.  An
error in a function of the hook is reported, and the watch goes on."
  :type 'hook)

(defface agentstatus-blocked
  '((t :inherit warning))
  "Face of the blocked count in the mode line.")

(defface agentstatus-error
  '((t :inherit error))
  "Face of the mode line's mark when statusls cannot run.")

(defvar agentstatus-blocked-session nil
  "The session that became blocked, while `agentstatus-blocked-hook' runs.
An alist of the session's `statusls --json' object, with symbols as
keys (agent, session, state, title, cwd, waitingFor, ...); read it
with `agentstatus-session-get'.")

;;; State

(defvar agentstatus--process nil "The statusls watch process, or nil.")
(defvar agentstatus--partial "" "The start of a line not yet ended.")
(cl-defstruct (agentstatus--session
               (:constructor agentstatus--session-make)
               (:copier nil) (:predicate nil))
  "What the list shows of a session.
A few fields, not the whole event: thousands of sessions stay
cheap for the garbage collector."
  received state agent cwd title why file age fresh host)

(defvar agentstatus--sessions (make-hash-table :test #'equal)
  "The sessions, as statusls lists them: key -> `agentstatus--session'.
RECEIVED is the `float-time' the event arrived, AGE the age statusls
gave then, FRESH nil for a stale session (with --all).")
(defvar agentstatus--counts (make-hash-table :test #'equal)
  "The number of sessions in each state.")
(defvar agentstatus--offline (make-hash-table :test #'equal)
  "Hosts that cannot be reached (with --host).")
(defvar agentstatus--synced nil "Non-nil once the snapshot has arrived.")
(defvar agentstatus--missing nil
  "Non-nil when the directory did not exist as the watch started.
The stream says so only then: a session that appears clears it.")
(defvar agentstatus--blocked-before nil
  "Keys of the sessions blocked when the last watch exited.
Their snapshot in the next watch does not run the hook again.")
(defvar agentstatus--stderr "" "The end of what the watch wrote on stderr.")
(defvar agentstatus--error nil "Why statusls does not run, or nil.")
(defvar agentstatus--last-message nil "The last message shown in the echo area.")
(defvar agentstatus--restart-timer nil "The timer of the next restart.")
(defvar agentstatus--delay nil "The delay before the next restart.")
(defvar agentstatus--started 0 "When the current watch started (`float-time').")
(defvar agentstatus--stopping nil "Non-nil while the mode stops the watch.")
(defvar agentstatus--list-timer nil "The pending redraw of the list buffer.")
(defvar agentstatus--list-cost 0.0 "How long the last redraw of the list took.")
(defvar agentstatus--watch-error nil "The last error event of the stream.")

(defvar agentstatus--mode-line ""
  "What the mode line shows: the summary, or a mark on failure.")
(put 'agentstatus--mode-line 'risky-local-variable t)

(defconst agentstatus--list-buffer "*agentstatus*"
  "The name of the list's buffer.")

(defconst agentstatus--max-line (* 4 1024 1024)
  "Longest line kept; a longer partial line is dropped.")

;;; Reading sessions

(defun agentstatus-session-get (session key)
  "Return the value of KEY in SESSION, nil when null or absent.
SESSION is an alist of a `statusls --json' object, such as
`agentstatus-blocked-session'; KEY a symbol, such as `agent', `state',
`title', `cwd' or `session'."
  (let ((v (alist-get key session)))
    (if (eq v :false) nil v)))

(defun agentstatus--text (v)
  "Return V when it is a non-empty string, else nil."
  (and (stringp v) (not (string-empty-p v)) v))

(defun agentstatus-why (session)
  "Return why SESSION is in its state, in the words of statusls's WHY.
For example \"Bash: rm -rf build\", \"question: Which database?\",
\"cancelled\" or \"rate limited\"; nil when its record does not say.
SESSION is an alist of a `statusls --json' object."
  (let ((state (alist-get 'state session))
        (w (alist-get 'waitingFor session))
        (e (alist-get 'ended session)))
    (cond
     ((and (equal state "blocked") (consp w)
           (agentstatus--text (alist-get 'kind w)))
      (let ((kind (alist-get 'kind w))
            (tool (agentstatus--text (alist-get 'tool w)))
            (detail (agentstatus--text (alist-get 'detail w))))
        (cond ((and (equal kind "permission") tool detail)
               (concat tool ": " detail))
              ((and (equal kind "permission") tool) tool)
              (detail (concat kind ": " detail))
              (t kind))))
     ((and (equal state "idle") (consp e)
           (agentstatus--text (alist-get 'reason e)))
      (let ((reason (alist-get 'reason e))
            (detail (agentstatus--text (alist-get 'detail e))))
        (cond ((equal reason "rate_limited") "rate limited")
              ((and detail (not (member reason '("done" "cancelled"))))
               (concat reason ": " detail))
              (t reason)))))))

(defun agentstatus--key (ev)
  "Return the key of the session of event EV, or nil.
With --host, sessions of other machines are told apart by host."
  (let ((session (alist-get 'session ev))
        (host (alist-get 'host ev)))
    (when (stringp session)
      (if (stringp host) (concat host "\0" session) session))))

(defun agentstatus--count (state n)
  "Add N to the count of STATE."
  (let ((c (+ n (gethash state agentstatus--counts 0))))
    (if (> c 0)
        (puthash state c agentstatus--counts)
      (remhash state agentstatus--counts))))

(defun agentstatus--blocked-p (session)
  "Return non-nil when SESSION, an `agentstatus--session', is fresh and blocked."
  (and session
       (equal (agentstatus--session-state session) "blocked")
       (agentstatus--session-fresh session)))

(defun agentstatus--keep-stale-p ()
  "Return non-nil when stale sessions stay in the list (--all)."
  (member "--all" agentstatus-statusls-args))

(defun agentstatus--parse (line)
  "Return the object of the JSON LINE as an alist.
JSON null is nil, false is :false."
  (if (json-available-p)
      (json-parse-string line :object-type 'alist
                         :null-object nil :false-object :false)
    (let ((json-object-type 'alist) (json-array-type 'vector)
          (json-key-type 'symbol) (json-null nil) (json-false :false))
      (json-read-from-string line))))

(defun agentstatus--handle (line)
  "Apply LINE, one event of `statusls watch --json'.
Return (KEY . OBJECT) for a session that became blocked, t for
another change, or nil when nothing changed.  Lines that are not JSON
objects, and events this package does not know, are ignored."
  (let ((ev (condition-case nil (agentstatus--parse line) (error nil))))
    (when (consp ev)
      (let ((event (alist-get 'event ev))
            (key (agentstatus--key ev)))
        (cond
         ((equal event "synced")
          (setq agentstatus--synced t
                agentstatus--blocked-before nil
                agentstatus--missing (eq (alist-get 'missing ev) t))
          t)
         ((member event '("host-offline" "host-online"))
          (let ((host (alist-get 'host ev)))
            (when (stringp host)
              (if (equal event "host-offline")
                  (puthash host t agentstatus--offline)
                (remhash host agentstatus--offline))
              t)))
         ((equal event "error")
          (setq agentstatus--watch-error (alist-get 'error ev))
          nil)
         ((null key) nil)
         ((or (equal event "removed")
              (and (equal event "stale") (not (agentstatus--keep-stale-p))))
          (let ((old (gethash key agentstatus--sessions)))
            (when old
              (agentstatus--count (agentstatus--session-state old) -1)
              (remhash key agentstatus--sessions)
              t)))
         ((stringp (alist-get 'state ev))
          (setq agentstatus--missing nil)
          (let* ((old (gethash key agentstatus--sessions))
                 (state (alist-get 'state ev))
                 (age (alist-get 'age ev))
                 (new (agentstatus--session-make
                       :received (float-time) :state state
                       :agent (alist-get 'agent ev) :cwd (alist-get 'cwd ev)
                       :title (alist-get 'title ev) :why (agentstatus-why ev)
                       :file (alist-get 'file ev) :age (if (numberp age) age 0)
                       :fresh (not (eq (alist-get 'fresh ev) :false))
                       :host (alist-get 'host ev))))
            (when old
              (agentstatus--count (agentstatus--session-state old) -1))
            (agentstatus--count state 1)
            (puthash key new agentstatus--sessions)
            (if (and (agentstatus--blocked-p new)
                     (not (agentstatus--blocked-p old))
                     (not (and (not agentstatus--synced)
                               (member key agentstatus--blocked-before))))
                (cons key ev)
              t))))))))

(defun agentstatus-summary ()
  "Return the summary of the sessions, as `statusls --summary' words it.
For example \"1 blocked · 2 working · 3 idle\": the known states in
order of attention, then other states by name, each with its
count; \"\" when there are none.  With --host in
`agentstatus-statusls-args', \"· 1 host offline\" ends it while a
host cannot be reached."
  (let ((parts nil) (others nil))
    (maphash (lambda (state _) (unless (member state '("blocked" "working" "idle"))
                                 (push state others)))
             agentstatus--counts)
    (dolist (state (append '("blocked" "working" "idle") (sort others #'string<)))
      (let ((n (gethash state agentstatus--counts 0)))
        (when (> n 0)
          (push (format "%d %s" n state) parts))))
    (let ((down (hash-table-count agentstatus--offline)))
      (when (> down 0)
        (push (format "%d host%s offline" down (if (= down 1) "" "s")) parts)))
    (mapconcat #'identity (nreverse parts) " · ")))

;;; The mode line

(defvar agentstatus--mode-line-map
  (let ((map (make-sparse-keymap)))
    (define-key map [mode-line mouse-1] #'agentstatus-list)
    map)
  "Keys of the mode line's summary.")

(defun agentstatus--tooltip ()
  "Return the tooltip of the summary."
  (concat "Coding agents' sessions"
          (when agentstatus--missing
            "\nthe status directory did not exist when the watch started")
          (when agentstatus--watch-error
            (concat "\nlast error: " agentstatus--watch-error))
          "\nmouse-1: list them"))

(defun agentstatus--update-mode-line ()
  "Set the mode line from the sessions, or from the error."
  (let ((new
         (if agentstatus--error
             (propertize " agentstatus!" 'face 'agentstatus-error
                         'help-echo (concat agentstatus--error
                                            "\nmouse-1: list the sessions")
                         'mouse-face 'mode-line-highlight
                         'local-map agentstatus--mode-line-map)
           (let ((summary (agentstatus-summary)))
             (if (string-empty-p summary)
                 ""
               (let ((s (propertize (concat " " summary)
                                    'help-echo (agentstatus--tooltip)
                                    'mouse-face 'mode-line-highlight
                                    'local-map agentstatus--mode-line-map)))
                 (when (> (gethash "blocked" agentstatus--counts 0) 0)
                   ;; The blocked count is the summary's first part.
                   (add-face-text-property
                    1 (or (string-search " · " s) (length s))
                    'agentstatus-blocked nil s))
                 s))))))
    (unless (equal-including-properties new agentstatus--mode-line)
      (setq agentstatus--mode-line new)
      (force-mode-line-update t))))

(defun agentstatus--fail (text)
  "Record TEXT as why statusls does not run, and show it once."
  (setq agentstatus--error text)
  (agentstatus--update-mode-line)
  (unless (equal text agentstatus--last-message)
    (setq agentstatus--last-message text)
    (message "%s" text)))

;;; The process

(defun agentstatus--command (program)
  "Return the command line of the watch, running PROGRAM."
  (append (list program "watch" "--json" "--until-eof")
          (when agentstatus-directory
            (list "--dir" (expand-file-name agentstatus-directory)))
          agentstatus-statusls-args))

(defun agentstatus--clear ()
  "Forget the sessions."
  (clrhash agentstatus--sessions)
  (clrhash agentstatus--counts)
  (clrhash agentstatus--offline)
  (setq agentstatus--partial ""
        agentstatus--synced nil
        agentstatus--missing nil
        agentstatus--watch-error nil))

(defun agentstatus--start ()
  "Start the statusls watch, unless it is running."
  (setq agentstatus--restart-timer nil)
  (unless (process-live-p agentstatus--process)
    (agentstatus--clear)
    (let ((program (executable-find agentstatus-statusls-program)))
      (if (not program)
          (agentstatus--fail
           (format "agentstatus: cannot find %s (agentstatus-statusls-program); install it with 'go install github.com/agentstatus/agentstatus/cmd/...@latest' or set the option, then M-x agentstatus-restart"
                   agentstatus-statusls-program))
        (setq agentstatus--stderr "")
        (condition-case err
            (let* ((default-directory
                    ;; Not the current buffer's, which may be remote or gone.
                    (if (file-accessible-directory-p "~/") (expand-file-name "~/") "/"))
                   (stderr (make-pipe-process
                           :name "agentstatus stderr" :noquery t
                           :coding 'utf-8-unix
                           :filter #'agentstatus--stderr-filter
                           :sentinel #'ignore)))
              (setq agentstatus--started (float-time)
                    agentstatus--process
                    (make-process
                     :name "agentstatus"
                     :command (agentstatus--command program)
                     :connection-type 'pipe
                     :coding 'utf-8-unix
                     :noquery t
                     :stderr stderr
                     :filter #'agentstatus--filter
                     :sentinel #'agentstatus--sentinel))
              (process-put agentstatus--process 'agentstatus-stderr stderr))
          (error
           (agentstatus--fail (format "agentstatus: cannot run %s: %s"
                                      program (error-message-string err)))))))))

(defun agentstatus--stderr-filter (_proc string)
  "Keep the end of what statusls wrote on stderr, STRING."
  (let ((s (concat agentstatus--stderr string)))
    (setq agentstatus--stderr
          (if (> (length s) 4096) (substring s -4096) s))))

(defun agentstatus--filter (proc string)
  "Apply the lines of STRING, output of the watch PROC.
A line split across calls is kept until its end arrives.  The mode
line is redrawn once per call, and the list soon after."
  (when (eq proc agentstatus--process)
    (let ((s (if (string-empty-p agentstatus--partial) string
               (concat agentstatus--partial string)))
          (start 0) (changed nil) (blocked nil) nl)
      (while (setq nl (string-search "\n" s start))
        (let ((r (agentstatus--handle (substring s start nl))))
          (when r
            (setq changed t)
            (when (consp r) (push r blocked))))
        (setq start (1+ nl)))
      (setq agentstatus--partial
            (if (> (- (length s) start) agentstatus--max-line) ""
              (substring s start)))
      (when (and agentstatus--synced agentstatus--error)
        ;; The watch runs again: forget the failure and the delay.
        (setq agentstatus--error nil agentstatus--last-message nil changed t))
      (when changed
        (agentstatus--update-mode-line)
        (agentstatus--schedule-list-update))
      (dolist (b (nreverse blocked))
        ;; Still blocked after the whole chunk.
        (when (agentstatus--blocked-p (gethash (car b) agentstatus--sessions))
          (let ((agentstatus-blocked-session (cdr b)))
            ;; Caught even with `debug-on-error': the stream goes on.
            (condition-case err
                (run-hooks 'agentstatus-blocked-hook)
              (error (message "agentstatus-blocked-hook: %S" err)))))))))

(defun agentstatus--exit-text (proc)
  "Return the message of the exit of PROC, with what it said on stderr."
  (let* ((stderr (process-get proc 'agentstatus-stderr))
         (deadline (+ (float-time) 0.2)))
    ;; The last of stderr may still be in the pipe: read it, briefly.
    (while (and stderr (process-live-p stderr) (< (float-time) deadline)
                (accept-process-output stderr 0.05 nil t)))
    (when stderr (delete-process stderr))
    (let ((said (mapconcat
                 (lambda (l) (string-remove-prefix "statusls: " l))
                 (split-string agentstatus--stderr "\n" t "[ \t\r]+")
                 "; ")))
      (format "agentstatus: statusls watch %s%s"
              (if (eq (process-status proc) 'signal)
                  (format "was killed by signal %d" (process-exit-status proc))
                (format "exited with status %d" (process-exit-status proc)))
              (if (string-empty-p said) "" (concat ": " said))))))

(defun agentstatus--sentinel (proc _event)
  "Restart the watch PROC after it exits, with a growing delay."
  (when (and (eq proc agentstatus--process) (not (process-live-p proc)))
    (setq agentstatus--process nil)
    (unless agentstatus--stopping
      (let ((text (agentstatus--exit-text proc)))
        (setq agentstatus--blocked-before
              (let (keys)
                (maphash (lambda (k e) (when (agentstatus--blocked-p e) (push k keys)))
                         agentstatus--sessions)
                keys))
        (agentstatus--clear)
        (when (> (- (float-time) agentstatus--started) 60)
          (setq agentstatus--delay nil))
        (let ((delay (or agentstatus--delay agentstatus-restart-delay)))
          (setq agentstatus--delay (min (* 2 delay) agentstatus-restart-max-delay))
          (agentstatus--fail text)
          ;; The delay is in the tooltip only: the message stays the
          ;; same from one restart to the next, and is shown once.
          (setq agentstatus--mode-line
                (propertize agentstatus--mode-line 'help-echo
                            (format "%s\nrestarting in %g s\nmouse-1: list the sessions"
                                    text delay)))
          (force-mode-line-update t)
          (agentstatus--schedule-list-update)
          (setq agentstatus--restart-timer
                (run-at-time delay nil #'agentstatus--start)))))))

(defun agentstatus--stop ()
  "Stop the watch and the timers, and forget the sessions."
  (when (timerp agentstatus--restart-timer)
    (cancel-timer agentstatus--restart-timer))
  (setq agentstatus--restart-timer nil)
  (when (process-live-p agentstatus--process)
    (let ((agentstatus--stopping t)
          (stderr (process-get agentstatus--process 'agentstatus-stderr)))
      (delete-process agentstatus--process)
      (when stderr (delete-process stderr))))
  (setq agentstatus--process nil
        agentstatus--error nil
        agentstatus--last-message nil
        agentstatus--delay nil
        agentstatus--blocked-before nil)
  (agentstatus--clear))

;;;###autoload
(define-minor-mode agentstatus-mode
  "Show the coding agents' sessions in the mode line.
The summary, \"1 blocked · 2 working\", comes from one `statusls
watch --json' process (see `agentstatus-statusls-program').  Click
it, or run \\[agentstatus-list], for the list.  When statusls cannot
run, the mode line shows \"agentstatus!\" and its tooltip says why."
  :global t
  :group 'agentstatus
  (agentstatus--stop)
  (cond
   (agentstatus-mode
    (unless global-mode-string (setq global-mode-string '("")))
    (unless (memq 'agentstatus--mode-line global-mode-string)
      (setq global-mode-string
            (append global-mode-string '(agentstatus--mode-line))))
    (agentstatus--update-mode-line)
    (agentstatus--start))
   (t
    (setq global-mode-string (delq 'agentstatus--mode-line global-mode-string))
    (setq agentstatus--mode-line "")
    (force-mode-line-update t)))
  (agentstatus--schedule-list-update))

(defun agentstatus-restart ()
  "Restart the statusls watch now, after changing a setting or a fix."
  (interactive)
  (if agentstatus-mode
      (agentstatus-mode 1)
    (user-error "Turn on `agentstatus-mode' first")))

;;; The list

(defun agentstatus--age (seconds)
  "Return SECONDS as the table's age column words: 12s, 5m, 3h, 2d."
  (cond ((< seconds 0) (if (>= seconds -30) "0s"
                         (concat "in " (agentstatus--age (- seconds)))))
        ((< seconds 60) (format "%ds" (floor seconds)))
        ((< seconds 3600) (format "%dm" (floor seconds 60)))
        ((< seconds (* 48 3600)) (format "%dh" (floor seconds 3600)))
        (t (format "%dd" (floor seconds 86400)))))

(defun agentstatus--rank (state)
  "Return the place of STATE in the order of attention."
  (pcase state ("blocked" 0) ("working" 1) ("idle" 2) (_ 3)))

(defun agentstatus--before-p (a b)
  "Return non-nil when session A comes before B in statusls's table.
A and B are `agentstatus--session's: blocked, working, idle, other
states by name, then the local machine first, then file-name order."
  (let* ((sa (agentstatus--session-state a)) (sb (agentstatus--session-state b))
         (ra (agentstatus--rank sa)) (rb (agentstatus--rank sb))
         (ha (or (agentstatus--session-host a) "")) (hb (or (agentstatus--session-host b) "")))
    (cond ((/= ra rb) (< ra rb))
          ((and (= ra 3) (not (equal sa sb))) (string< sa sb))
          ((not (equal ha hb)) (string< ha hb))
          (t (string< (or (agentstatus--session-file a) "")
                      (or (agentstatus--session-file b) ""))))))

(defun agentstatus--cell (v)
  "Return V for a cell: a string, \"\" when unknown."
  (if (stringp v) v ""))

(defun agentstatus--tilde (path)
  "Return PATH with the home directory shown as ~."
  (let ((home (directory-file-name (expand-file-name "~"))))
    (cond ((not (stringp path)) "")
          ((equal path home) "~")
          ((string-prefix-p (concat home "/") path)
           (concat "~" (substring path (length home))))
          (t path))))

(defun agentstatus--entries ()
  "Return the list's entries, in the order of statusls's table."
  (let ((now (float-time)) (all nil))
    (maphash (lambda (k v) (push (cons k v) all)) agentstatus--sessions)
    (mapcar
     (lambda (e)
       (let* ((o (cdr e))
              (state (agentstatus--cell (agentstatus--session-state o))))
         (list (car e)
               (vector (if (equal state "blocked")
                           (propertize state 'face 'agentstatus-blocked)
                         state)
                       (concat (agentstatus--age (+ (agentstatus--session-age o)
                                                    (- now (agentstatus--session-received o))))
                               (if (agentstatus--session-fresh o) "" " stale"))
                       (agentstatus--cell (agentstatus--session-agent o))
                       (agentstatus--tilde (agentstatus--session-cwd o))
                       (agentstatus--cell (agentstatus--session-title o))
                       (or (agentstatus--session-why o) "")))))
     (sort all (lambda (a b) (agentstatus--before-p (cdr a) (cdr b)))))))

(defun agentstatus--list-refresh ()
  "Fill the list's entries and columns from the sessions."
  (let* ((entries (agentstatus--entries))
         (names ["State" "Age" "Agent" "Cwd" "Title" "Why"])
         (caps [12 10 20 40 40 nil])
         (widths (mapcar #'string-width names)))
    (dolist (e entries)
      (setq widths (cl-mapcar (lambda (w c) (max w (string-width c)))
                              widths (cadr e))))
    (setq tabulated-list-entries entries
          tabulated-list-format
          (vconcat
           (cl-mapcar (lambda (name w cap)
                        (list name (if cap (min w cap) w) nil))
                      names widths caps)))
    (tabulated-list-init-header)))

(defun agentstatus--print-entry (id cols)
  "Insert the row of session ID, with cells COLS, as one line.
The `tabulated-list-printer': one insertion a row, padded with
spaces, keeps a redraw of thousands of rows short."
  (let ((beg (point)) (n (length cols))
        (parts (list (make-string tabulated-list-padding ?\s))))
    (dotimes (i n)
      (let ((cell (bidi-string-mark-left-to-right (aref cols i))))
        (if (= i (1- n))
            (push cell parts)
          (let ((w (nth 1 (aref tabulated-list-format i)))
                (cw (string-width cell)))
            (when (> cw w)
              (setq cell (truncate-string-to-width cell w nil nil t)
                    cw (string-width cell)))
            (push cell parts)
            (push (make-string (- (1+ w) cw) ?\s) parts)))))
    (insert (apply #'concat (nreverse parts)) "\n")
    (add-text-properties beg (point) `(tabulated-list-id ,id tabulated-list-entry ,cols))))

(defun agentstatus--list-update ()
  "Redraw the list buffer, if it is open."
  (setq agentstatus--list-timer nil)
  (let ((buf (get-buffer agentstatus--list-buffer))
        (t0 (float-time)))
    (when (buffer-live-p buf)
      (with-current-buffer buf
        (agentstatus--list-refresh)
        (tabulated-list-print t)
        (setq mode-line-process
              (cond (agentstatus--error '(" " (:propertize "error" face agentstatus-error)))
                    ((not agentstatus-mode) " off")
                    (agentstatus--missing " no directory yet"))))
      (setq agentstatus--list-cost (- (float-time) t0)))))

(defun agentstatus--schedule-list-update ()
  "Redraw the list soon: once after a burst.
The wait is 0.1 s, or ten times the last redraw's time when that is
longer, so that a list of thousands of sessions under a stream of
changes leaves Emacs free most of the time."
  (when (and (not agentstatus--list-timer) (get-buffer agentstatus--list-buffer))
    (setq agentstatus--list-timer
          (run-at-time (max 0.1 (* 10 agentstatus--list-cost)) nil
                       #'agentstatus--list-update))))

(define-derived-mode agentstatus-list-mode tabulated-list-mode "Agents"
  "The coding agents' sessions, as statusls lists them.
Columns: state, age, agent, workspace, title, and why the session is
in its state.  The sessions that need you come first.  The list
follows the changes while `agentstatus-mode' is on; \\[revert-buffer]
redraws it (and the ages)."
  (setq tabulated-list-padding 1
        tabulated-list-sort-key nil
        tabulated-list-printer #'agentstatus--print-entry)
  (add-hook 'tabulated-list-revert-hook #'agentstatus--list-refresh nil t))

;;;###autoload
(defun agentstatus-list ()
  "List the coding agents' sessions: state, age, agent, cwd, title, why."
  (interactive)
  (unless agentstatus-mode (agentstatus-mode 1))
  (let ((buf (get-buffer-create agentstatus--list-buffer)))
    (with-current-buffer buf
      (unless (derived-mode-p 'agentstatus-list-mode)
        (agentstatus-list-mode)))
    (agentstatus--list-update)
    (when agentstatus--error (message "%s" agentstatus--error))
    (pop-to-buffer buf)))

(provide 'agentstatus)
;;; agentstatus.el ends here
