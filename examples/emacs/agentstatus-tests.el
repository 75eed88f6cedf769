;;; agentstatus-tests.el --- Tests of agentstatus.el -*- lexical-binding: t; no-byte-compile: t; -*-

;;; Commentary:

;; ERT tests, run in `emacs --batch' against the real statusls and
;; statuspub built from this repository (examples/emacs/check.sh builds
;; them and names their directory in $AGENTSTATUS_TEST_BIN; without it,
;; the tests that need them skip).  Each test publishes into a
;; temporary status directory and waits for what it expects with a
;; deadline, by `accept-process-output', never by a fixed sleep.

;;; Code:

(require 'ert)
(require 'agentstatus)

(defvar agentstatus-tests--bin (getenv "AGENTSTATUS_TEST_BIN")
  "The directory of the statusls and statuspub under test.")

(defvar agentstatus-tests--dir nil "The status directory of the test.")

(defun agentstatus-tests--program (name)
  "Return the file of program NAME under test."
  (expand-file-name name agentstatus-tests--bin))

(defun agentstatus-tests--run (program &rest args)
  "Run PROGRAM under test with ARGS; return its output, fail on exit != 0."
  (with-temp-buffer
    (let ((status (apply #'call-process (agentstatus-tests--program program)
                         nil t nil args)))
      (unless (eq status 0)
        (ert-fail (format "%s %S: exit %s: %s" program args status (buffer-string))))
      (buffer-string))))

(defun agentstatus-tests--pub (session &rest args)
  "Run `statuspub set' for SESSION with ARGS in the test's directory.
The record has no process (--pid 0), so no heartbeat owner is
started: it goes stale 30 s after this write."
  (apply #'agentstatus-tests--run "statuspub" "set" "--strict" "--dir" agentstatus-tests--dir
         "--session" session "--pid" "0" args))

(defun agentstatus-tests--clear (session)
  "Run `statuspub clear' for SESSION."
  (agentstatus-tests--run "statuspub" "clear" "--strict" "--dir" agentstatus-tests--dir
                          "--session" session))

(defun agentstatus-tests--statusls-summary ()
  "Return what `statusls --summary' prints for the test's directory."
  (string-trim-right (agentstatus-tests--run "statusls" "--summary" "--dir" agentstatus-tests--dir)))

(defun agentstatus-tests--write-record (session state updated-at &optional title)
  "Write SESSION's record by hand: STATE, UPDATED-AT (a time), TITLE.
The record is written to a dot-file and renamed, as publishers do."
  (let* ((name (concat (secure-hash 'sha256 session) ".json"))
         (tmp (expand-file-name (concat "." name ".tmp") agentstatus-tests--dir))
         (json (concat
                "{\"schema\":\"gentle-shell.agent-status/v1\",\"agent\":\"test\","
                "\"session\":" (json-encode session) ",\"pid\":0,\"cwd\":\"/w\","
                "\"state\":" (json-encode state) ","
                "\"task\":" (if title (format "{\"title\":%s}" (json-encode title)) "null") ","
                "\"updatedAt\":\""
                (format-time-string "%Y-%m-%dT%H:%M:%S.%3NZ" updated-at t) "\"}\n")))
    (with-temp-file tmp
      (set-buffer-file-coding-system 'utf-8-unix)
      (insert json))
    (set-file-modes tmp #o600)
    (rename-file tmp (expand-file-name name agentstatus-tests--dir) t)))

(defun agentstatus-tests--wait (what pred &optional seconds)
  "Wait until PRED is non-nil, at most SECONDS (default 10).
Fail with WHAT and the mode line when it does not happen in time."
  (let ((deadline (+ (float-time) (or seconds 10))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (ert-fail (format "%s: not within %s s (mode line %S, error %S)"
                        what (or seconds 10)
                        (substring-no-properties agentstatus--mode-line)
                        agentstatus--error)))))

(defun agentstatus-tests--mode-line ()
  "Return the text this package puts in the mode line.
`format-mode-line' has no frame to draw in batch mode, so this
checks that the symbol is in `global-mode-string' and returns its
value."
  (should (memq 'agentstatus--mode-line global-mode-string))
  (substring-no-properties agentstatus--mode-line))

(defun agentstatus-tests--shows (summary)
  "Wait for the mode line to say SUMMARY, in statusls --summary's words."
  (let ((want (if (string-empty-p summary) "" (concat " " summary))))
    (agentstatus-tests--wait (format "mode line %S" want)
                             (lambda () (equal (agentstatus-tests--mode-line) want)))
    (should (equal (agentstatus-summary) summary))
    (should (equal (agentstatus-tests--statusls-summary) summary))))

(defun agentstatus-tests--rows ()
  "Return the list buffer's rows: lists of the cells' text."
  (with-current-buffer agentstatus--list-buffer
    (mapcar (lambda (e) (mapcar #'substring-no-properties (cadr e)))
            tabulated-list-entries)))

(defun agentstatus-tests--buffer-lines ()
  "Return the list buffer's lines, blanks squeezed."
  (with-current-buffer agentstatus--list-buffer
    (mapcar (lambda (l) (string-trim (replace-regexp-in-string " +" " " l)))
            (split-string (buffer-substring-no-properties (point-min) (point-max)) "\n" t))))

(defun agentstatus-tests--list-shows (pred what)
  "Wait until PRED is true of the list buffer's lines; WHAT names it."
  (agentstatus-tests--wait what (lambda () (funcall pred (agentstatus-tests--buffer-lines)))))

(defmacro agentstatus-tests--with-dir (&rest body)
  "Run BODY with `agentstatus-mode' on, over a new status directory."
  (declare (indent 0) (debug t))
  `(progn
     (skip-unless agentstatus-tests--bin)
     (let* ((home (make-temp-file "agentstatus-test" t))
            (agentstatus-tests--dir (expand-file-name "agent-status" home))
            (agentstatus-statusls-program (agentstatus-tests--program "statusls"))
            (agentstatus-directory agentstatus-tests--dir)
            (agentstatus-statusls-args nil)
            (agentstatus-blocked-hook nil)
            (agentstatus-restart-delay 0.2)
            (agentstatus-restart-max-delay 60))
       (make-directory agentstatus-tests--dir)
       (set-file-modes agentstatus-tests--dir #o700)
       (unwind-protect
           (progn ,@body)
         (agentstatus-mode -1)
         (when (get-buffer agentstatus--list-buffer)
           (kill-buffer agentstatus--list-buffer))
         (set-file-modes agentstatus-tests--dir #o700)
         (delete-directory home t)))))

(defun agentstatus-tests--messages-matching (regexp)
  "Return how many lines of *Messages* match REGEXP."
  (with-current-buffer (messages-buffer)
    (count-matches regexp (point-min) (point-max))))

;;; With the real statusls

(ert-deftest agentstatus-mode-line-follows-set-and-clear ()
  "The mode line follows statuspub set and clear, in statusls's words."
  (agentstatus-tests--with-dir
    (let ((blocked nil))
      (add-hook 'agentstatus-blocked-hook
                (lambda ()
                  (push (list (agentstatus-session-get agentstatus-blocked-session 'session)
                              (agentstatus-session-get agentstatus-blocked-session 'agent)
                              (agentstatus-why agentstatus-blocked-session))
                        blocked)))
      (agentstatus-mode 1)
      (agentstatus-tests--wait "synced" (lambda () agentstatus--synced))
      (should (equal (agentstatus-tests--mode-line) ""))
      (agentstatus-tests--pub "a" "--agent" "claude-code" "--state" "blocked"
                              "--waiting-for" "permission" "--tool" "Bash" "--detail" "rm -rf build")
      (agentstatus-tests--shows "1 blocked")
      (should (equal blocked '(("a" "claude-code" "Bash: rm -rf build"))))
      (agentstatus-tests--pub "b" "--state" "working")
      (agentstatus-tests--pub "c" "--state" "working")
      (agentstatus-tests--shows "1 blocked · 2 working")
      (agentstatus-tests--pub "a" "--state" "idle" "--ended" "done")
      (agentstatus-tests--shows "2 working · 1 idle")
      ;; Blocked again: the hook runs again; a working session going
      ;; blocked too; an update that stays blocked does not.
      (agentstatus-tests--pub "a" "--state" "blocked" "--waiting-for" "question" "--detail" "Which database?")
      (agentstatus-tests--pub "b" "--state" "blocked" "--waiting-for" "auth")
      (agentstatus-tests--shows "2 blocked · 1 working")
      (agentstatus-tests--pub "b" "--title" "still waiting")
      (agentstatus-tests--wait "title" (lambda ()
                                         (equal (agentstatus--session-title (gethash "b" agentstatus--sessions))
                                                "still waiting")))
      (should (equal (reverse blocked)
                     '(("a" "claude-code" "Bash: rm -rf build")
                       ("a" "claude-code" "question: Which database?")
                       ("b" "statuspub" "auth"))))
      (agentstatus-tests--clear "b")
      (agentstatus-tests--shows "1 blocked · 1 working")
      (agentstatus-tests--clear "a")
      (agentstatus-tests--clear "c")
      (agentstatus-tests--shows "")
      (agentstatus-mode -1)
      (should-not (memq 'agentstatus--mode-line global-mode-string))
      (should-not (process-live-p agentstatus--process)))))

(ert-deftest agentstatus-list-follows-set-and-clear ()
  "The list has the table's columns and order, and follows changes."
  (agentstatus-tests--with-dir
    (agentstatus-mode 1)
    (agentstatus-tests--pub "idle-1" "--agent" "codex" "--state" "idle" "--cwd" "/srv/api"
                            "--title" "Ship it" "--ended" "rate_limited")
    (agentstatus-tests--pub "work-1" "--agent" "gemini" "--state" "working" "--cwd" (expand-file-name "~/src"))
    (agentstatus-tests--pub "block-1" "--agent" "claude-code" "--state" "blocked" "--cwd" "/srv/web"
                            "--title" "Clean up" "--waiting-for" "permission" "--tool" "Bash"
                            "--detail" "rm -rf build")
    (agentstatus-tests--pub "work-2" "--agent" "pi" "--state" "working" "--cwd" "/srv/x")
    (agentstatus-tests--shows "1 blocked · 2 working · 1 idle")
    (agentstatus-list)
    (agentstatus-tests--wait "four rows" (lambda () (= 4 (length (agentstatus-tests--rows)))))
    (let ((rows (agentstatus-tests--rows))
          ;; Working sessions in file-name order, as statusls's table.
          (works (sort (list "work-1" "work-2")
                       (lambda (a b) (string< (secure-hash 'sha256 a) (secure-hash 'sha256 b))))))
      (should (equal (mapcar #'car rows) '("blocked" "working" "working" "idle")))
      (should (equal (mapcar (lambda (r) (nth 2 r)) rows)
                     (list "claude-code"
                           (if (equal (car works) "work-1") "gemini" "pi")
                           (if (equal (car works) "work-1") "pi" "gemini")
                           "codex")))
      (should (equal (cddr (car rows)) '("claude-code" "/srv/web" "Clean up" "Bash: rm -rf build")))
      (should (equal (cddr (nth 3 rows)) '("codex" "/srv/api" "Ship it" "rate limited")))
      (should (member '("gemini" "~/src" "" "") (mapcar #'cddr rows)))
      (dolist (r rows) (should (string-match-p "\\`[0-9]+s\\'" (nth 1 r))))
      ;; The same order as statusls's own table.
      (let ((table (mapcar (lambda (o) (gethash "agent" o))
                           (json-parse-string
                            (agentstatus-tests--run "statusls" "--dir" agentstatus-tests--dir
                                                    "--sort" "attention" "--json")))))
        (should (equal (append table nil) (mapcar (lambda (r) (nth 2 r)) rows)))))
    ;; The buffer shows them, with the header's columns.
    (with-current-buffer agentstatus--list-buffer
      (should (equal (mapcar #'car tabulated-list-format)
                     '("State" "Age" "Agent" "Cwd" "Title" "Why"))))
    (agentstatus-tests--list-shows
     (lambda (lines) (string-match-p "\\`blocked [0-9]+s claude-code /srv/web Clean up Bash: rm -rf build\\'" (car lines)))
     "the blocked row first")
    ;; set: the idle session becomes blocked and moves up; clear: a row goes.
    (agentstatus-tests--pub "idle-1" "--state" "blocked" "--waiting-for" "question" "--detail" "Which database?")
    (agentstatus-tests--clear "work-2")
    (agentstatus-tests--list-shows
     (lambda (lines)
       (and (= 3 (length lines))
            (string-match-p "\\`blocked .* claude-code " (nth 0 lines))
            (string-match-p "\\`blocked .* codex /srv/api Ship it question: Which database\\?\\'" (nth 1 lines))
            (string-match-p "\\`working .* gemini ~/src\\'" (nth 2 lines))))
     "the list after set and clear")
    (agentstatus-tests--shows "2 blocked · 1 working")))

(ert-deftest agentstatus-staleness ()
  "A session whose record stops being rewritten leaves at the 30 s line."
  (agentstatus-tests--with-dir
    (agentstatus-mode 1)
    (agentstatus-tests--pub "live" "--state" "idle")
    ;; 25 s old: fresh now, stale within about 5 s.
    (agentstatus-tests--write-record "old" "working" (time-subtract nil 25) "Going stale")
    ;; Already stale: never shown.
    (agentstatus-tests--write-record "older" "blocked" (time-subtract nil 120))
    (agentstatus-list)
    (agentstatus-tests--shows "1 working · 1 idle")
    (agentstatus-tests--list-shows (lambda (lines) (and (= 2 (length lines))
                                                        (string-match-p "Going stale" (car lines))))
                                   "the row about to go stale")
    (agentstatus-tests--wait "stale" (lambda () (equal (agentstatus-tests--mode-line) " 1 idle")) 15)
    (agentstatus-tests--shows "1 idle")
    (agentstatus-tests--list-shows (lambda (lines) (and (= 1 (length lines))
                                                        (string-match-p "\\`idle " (car lines))))
                                   "the list without the stale row")
    ;; A new write makes it fresh again.
    (agentstatus-tests--pub "old" "--state" "blocked")
    (agentstatus-tests--shows "1 blocked · 1 idle")
    (agentstatus-tests--list-shows (lambda (lines) (and (= 2 (length lines))
                                                        (string-match-p "\\`blocked .* Going stale\\'" (car lines))))
                                   "the row fresh again")))

(ert-deftest agentstatus-unknown-state ()
  "A state this package does not know is counted after the known ones."
  (agentstatus-tests--with-dir
    (agentstatus-mode 1)
    (agentstatus-tests--write-record "r" "reviewing" nil)
    (agentstatus-tests--write-record "q" "queued" nil)
    (agentstatus-tests--pub "i" "--state" "idle")
    (agentstatus-tests--shows "1 idle · 1 queued · 1 reviewing")))

;;; Bad input

(ert-deftest agentstatus-directory-appears-late ()
  "A directory that does not exist yet is no error; its sessions show once it does."
  (agentstatus-tests--with-dir
    (let ((agentstatus-directory (expand-file-name "later/agent-status" agentstatus-tests--dir)))
      (agentstatus-mode 1)
      (agentstatus-tests--wait "synced" (lambda () agentstatus--synced))
      (should agentstatus--missing)
      (should-not agentstatus--error)
      (should (equal (agentstatus-tests--mode-line) ""))
      (let ((agentstatus-tests--dir agentstatus-directory))
        (agentstatus-tests--pub "a" "--state" "working")
        (agentstatus-tests--shows "1 working"))
      (should-not agentstatus--missing))))

(ert-deftest agentstatus-missing-program ()
  "A missing statusls is one message, and no process or timer."
  (agentstatus-tests--with-dir
    (let ((agentstatus-statusls-program "/nonexistent/statusls")
          (before (agentstatus-tests--messages-matching "cannot find /nonexistent/statusls")))
      (agentstatus-mode 1)
      (should agentstatus-mode)
      (should (equal (agentstatus-tests--mode-line) " agentstatus!"))
      (should (string-match-p "cannot find /nonexistent/statusls"
                              (get-text-property 1 'help-echo agentstatus--mode-line)))
      (should-not agentstatus--process)
      (should-not agentstatus--restart-timer)
      (should (= (1+ before) (agentstatus-tests--messages-matching "cannot find /nonexistent/statusls")))
      ;; The list opens, and says it again.
      (agentstatus-list)
      (should (equal (agentstatus-tests--rows) nil)))))

(ert-deftest agentstatus-refused-directory ()
  "A directory others can write to: statusls's reason, once; backoff; recovery."
  (agentstatus-tests--with-dir
    (set-file-modes agentstatus-tests--dir #o777)
    (let* ((starts 0)
           (count (lambda (&rest _) (setq starts (1+ starts))))
           (before (agentstatus-tests--messages-matching "writable by group or others")))
      (advice-add 'agentstatus--start :before count)
      (unwind-protect
          (progn
            (agentstatus-mode 1)
            (agentstatus-tests--wait "the error" (lambda () agentstatus--error))
            (should (string-match-p "exited with status 1: status directory .*writable by group or others (mode 0777); hint: .*chmod 700"
                                    agentstatus--error))
            (should (equal (agentstatus-tests--mode-line) " agentstatus!"))
            (should (string-match-p "writable by group or others"
                                    (get-text-property 1 'help-echo agentstatus--mode-line)))
            ;; Restarts come with a doubling delay: 0.2, 0.4, 0.8, 1.6 s.
            (agentstatus-tests--wait "four exits" (lambda () (>= agentstatus--delay 3.2)) 20)
            (should (= starts 4))
            (should (= (1+ before) (agentstatus-tests--messages-matching "writable by group or others")))
            ;; Fixed: the next restart runs and the mark goes.
            (set-file-modes agentstatus-tests--dir #o700)
            (agentstatus-tests--pub "a" "--state" "working")
            (agentstatus-tests--shows "1 working")
            (should-not agentstatus--error))
        (advice-remove 'agentstatus--start count)))))

(ert-deftest agentstatus-hook-error ()
  "A hook function that fails is reported once per run; the watch goes on."
  (agentstatus-tests--with-dir
    (add-hook 'agentstatus-blocked-hook (lambda () (error "Broken hook")))
    (agentstatus-mode 1)
    (agentstatus-tests--pub "a" "--state" "blocked")
    (agentstatus-tests--shows "1 blocked")
    (agentstatus-tests--pub "b" "--state" "working")
    (agentstatus-tests--shows "1 blocked · 1 working")
    (should (process-live-p agentstatus--process))
    (should-not agentstatus--error)
    (should (= 1 (agentstatus-tests--messages-matching "agentstatus-blocked-hook: (error \"Broken hook\")")))))

(ert-deftest agentstatus-watch-exits ()
  "A watch that dies is restarted; the hook does not run again."
  (agentstatus-tests--with-dir
    (let ((runs 0))
      (add-hook 'agentstatus-blocked-hook (lambda () (setq runs (1+ runs))))
      (agentstatus-tests--pub "a" "--state" "blocked")
      (agentstatus-mode 1)
      (agentstatus-tests--shows "1 blocked")
      (should (= runs 1))
      (let ((old agentstatus--process))
        (signal-process old 'KILL)
        (agentstatus-tests--wait "the exit" (lambda () agentstatus--error))
        (should (string-match-p "was killed by signal 9" agentstatus--error))
        (should (equal (agentstatus-tests--mode-line) " agentstatus!"))
        (agentstatus-tests--pub "b" "--state" "working")
        (agentstatus-tests--shows "1 blocked · 1 working")
        (should (process-live-p agentstatus--process))
        (should-not (eq old agentstatus--process))
        (should-not agentstatus--error)
        (should (= runs 1))))))

;;; Without statusls

(defun agentstatus-tests--feed (chunks)
  "Feed CHUNKS of output to the filter, as a watch process would."
  (let ((agentstatus--process 'fake))
    (dolist (c chunks) (agentstatus--filter 'fake c))))

(defconst agentstatus-tests--lines
  (concat
   "{\"event\":\"snapshot\",\"seq\":1,\"session\":\"a\",\"file\":\"1.json\",\"state\":\"blocked\",\"title\":\"caf\u00e9 \u2603\",\"waitingFor\":{\"kind\":\"question\",\"tool\":null,\"detail\":null,\"since\":null}}\n"
   "not json\n"
   "[1,2]\n"
   "{\"event\":\"future-event\",\"session\":\"z\"}\n"
   "{\"event\":\"snapshot\",\"seq\":2,\"session\":\"b\",\"file\":\"2.json\",\"state\":\"working\",\"title\":null,\"newKey\":[1,{}]}\n"
   "{\"event\":\"synced\",\"seq\":3,\"session\":null,\"missing\":false}\n")
  "A stream with lines to ignore.")

(ert-deftest agentstatus-filter-split-lines ()
  "Lines split anywhere across reads give the same sessions."
  (dotimes (i (1+ (length agentstatus-tests--lines)))
    (agentstatus--clear)
    (agentstatus-tests--feed (list (substring agentstatus-tests--lines 0 i)
                                   (substring agentstatus-tests--lines i)))
    (should (equal (agentstatus-summary) "1 blocked · 1 working"))
    (should (equal (agentstatus--session-title (gethash "a" agentstatus--sessions)) "caf\u00e9 \u2603"))
    (should agentstatus--synced))
  (agentstatus--clear))

(ert-deftest agentstatus-filter-hosts ()
  "With --host, sessions are per host and offline hosts are counted."
  (agentstatus--clear)
  (agentstatus-tests--feed
   (list "{\"event\":\"snapshot\",\"host\":null,\"session\":\"a\",\"state\":\"idle\"}\n"
         "{\"event\":\"snapshot\",\"host\":\"devbox\",\"session\":\"a\",\"state\":\"working\"}\n"
         "{\"event\":\"host-offline\",\"host\":\"gpu\",\"session\":null}\n"))
  (should (equal (agentstatus-summary) "1 working · 1 idle · 1 host offline"))
  (agentstatus-tests--feed
   (list "{\"event\":\"host-online\",\"host\":\"gpu\",\"session\":null}\n"
         "{\"event\":\"removed\",\"host\":\"devbox\",\"session\":\"a\",\"state\":\"working\",\"reason\":\"deleted\"}\n"))
  (should (equal (agentstatus-summary) "1 idle"))
  (agentstatus--clear))

(ert-deftest agentstatus-why-words ()
  "The WHY words are statusls's (statusfile.Status.Why)."
  (dolist (c '((((state . "blocked") (waitingFor (kind . "permission") (tool . "Bash") (detail . "rm -rf build"))) "Bash: rm -rf build")
               (((state . "blocked") (waitingFor (kind . "permission") (tool . "Bash") (detail))) "Bash")
               (((state . "blocked") (waitingFor (kind . "permission") (tool) (detail . "x"))) "permission: x")
               (((state . "blocked") (waitingFor (kind . "question") (tool) (detail . "Which database?"))) "question: Which database?")
               (((state . "blocked") (waitingFor (kind . "auth"))) "auth")
               (((state . "working") (waitingFor (kind . "auth"))) nil)
               (((state . "idle") (ended (reason . "rate_limited") (detail . "429"))) "rate limited")
               (((state . "idle") (ended (reason . "failed") (detail . "server_error"))) "failed: server_error")
               (((state . "idle") (ended (reason . "done") (detail . "x"))) "done")
               (((state . "idle") (ended (reason . "cancelled") (detail . "x"))) "cancelled")
               (((state . "blocked") (ended (reason . "done"))) nil)
               (((state . "idle")) nil)))
    (should (equal (agentstatus-why (car c)) (cadr c)))))

(ert-deftest agentstatus-age-words ()
  "Ages are worded as statusls's table words them."
  (dolist (c '((0 "0s") (59.9 "59s") (60 "1m") (3599 "59m") (3600 "1h") (172799 "47h")
               (172800 "2d") (-10 "0s") (-30 "0s") (-31 "in 31s") (-7200 "in 2h")))
    (should (equal (agentstatus--age (car c)) (cadr c)))))

(provide 'agentstatus-tests)
;;; agentstatus-tests.el ends here
