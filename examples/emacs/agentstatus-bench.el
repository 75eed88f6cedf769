;;; agentstatus-bench.el --- How long the watch filter holds Emacs -*- lexical-binding: t; no-byte-compile: t; -*-

;;; Commentary:

;; Run by check.sh: Emacs in batch mode loads this file and calls
;; `agentstatus-bench-run', with $AGENTSTATUS_TEST_BIN naming the
;; directory of a statusls built from this repository.
;;
;; Emacs reads keyboard input between calls of a process filter, so the
;; longest single call of `agentstatus--filter' bounds how long a burst
;; of watch lines blocks input.  This writes 10,000 records (every third
;; blocked, with a reason) and runs the mode over them with the real
;; `statusls watch --json': a burst of 10,000 snapshot lines, in the
;; chunks Emacs reads (`read-process-output-max').  Then it feeds the same
;; lines again as 10,000 `stale' events (all sessions leaving at once) in
;; chunks of 4 KiB and of 64 KiB (for a user who raised
;; `read-process-output-max'), and times one redraw of the list with
;; 10,000 rows.  For each it prints the number of filter calls, the
;; longest and the median call in wall-clock time and in Emacs's CPU
;; time (the wall clock counts other programs' turns on a busy machine),
;; and the largest chunk.  It reports; it does not pass or fail.

;;; Code:

(require 'agentstatus)
(require 'seq)

(defvar agentstatus-bench--calls nil
  "Each filter call: (SECONDS CPU-SECONDS BYTES GCS).")
(defvar agentstatus-bench--lines nil "The output chunks, in order.")

(defun agentstatus-bench--timed (orig proc string)
  "Call ORIG with PROC and STRING, and record how long it took."
  (let ((t0 (float-time)) (c0 (float-time (get-internal-run-time))) (g0 gcs-done))
    (funcall orig proc string)
    (push (list (- (float-time) t0) (- (float-time (get-internal-run-time)) c0)
                (string-bytes string) (- gcs-done g0))
          agentstatus-bench--calls)
    (push string agentstatus-bench--lines)))

(defun agentstatus-bench--feed (what all chunk)
  "Feed ALL to the filter in CHUNK bytes at most, and report as WHAT."
  (let ((agentstatus--process 'bench)
        (agentstatus-bench--calls nil)
        (agentstatus-bench--lines nil)
        (i 0))
    (while (< i (length all))
      (let ((s (substring all i (min (length all) (+ i chunk)))))
        (agentstatus-bench--timed #'agentstatus--filter 'bench s))
      (setq i (+ i chunk)))
    (agentstatus-bench--report what agentstatus-bench--calls)))

(defun agentstatus-bench--report (what timings)
  "Print WHAT with the figures of the filter's TIMINGS."
  (let* ((wall (sort (mapcar #'car timings) #'<))
         (cpu (sort (mapcar #'cadr timings) #'<))
         (no-gc (or (sort (mapcar #'cadr (seq-filter (lambda (c) (= 0 (nth 3 c))) timings)) #'<)
                    '(0)))
         (n (length wall)))
    (message "%s: %d filter calls (%d with a garbage collection); longest %.1f ms CPU, %.1f ms wall; longest without a collection %.2f ms CPU; median %.3f ms CPU, %.3f ms wall; total %.0f ms CPU; largest chunk %d bytes"
             what n (seq-count (lambda (c) (> (nth 3 c) 0)) timings)
             (* 1000 (car (last cpu))) (* 1000 (car (last wall)))
             (* 1000 (car (last no-gc)))
             (* 1000 (nth (/ n 2) cpu)) (* 1000 (nth (/ n 2) wall))
             (* 1000 (apply #'+ cpu)) (apply #'max (mapcar #'caddr timings)))))

(defun agentstatus-bench--wait (pred seconds)
  "Wait for PRED at most SECONDS; signal an error when it does not hold."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (error "Not within %s s: %S" seconds agentstatus--mode-line))))

(defun agentstatus-bench-run ()
  "Run the benchmark and print its figures."
  (let* ((n 10000)
         (bin (or (getenv "AGENTSTATUS_TEST_BIN") (error "Set AGENTSTATUS_TEST_BIN")))
         (home (make-temp-file "agentstatus-bench" t))
         (dir (expand-file-name "agent-status" home))
         (agentstatus-statusls-program (expand-file-name "statusls" bin))
         (agentstatus-directory dir)
         (hooks 0)
         (agentstatus-blocked-hook (list (lambda () (setq hooks (1+ hooks))))))
    (make-directory dir)
    (set-file-modes dir #o700)
    ;; 20 s ahead (up to 30 s is fresh): fresh while writing takes less
    ;; than 50 s, which it does even on a busy machine.
    (let ((at (format-time-string "%Y-%m-%dT%H:%M:%S.%3NZ" (time-add nil 20) t))
          (coding-system-for-write 'utf-8-unix)
          (write-region-inhibit-fsync t))
      (dotimes (i n)
        (let* ((session (format "bench-session-%05d" i))
               (state (nth (% i 3) '("blocked" "working" "idle")))
               (json (concat "{\"schema\":\"gentle-shell.agent-status/v1\",\"agent\":\"claude-code\","
                             "\"session\":\"" session "\",\"pid\":0,\"cwd\":\"/home/user/src/project-"
                             (number-to-string (% i 97)) "\",\"state\":\"" state "\","
                             "\"task\":{\"title\":\"Refactor the parser of module " (number-to-string i) "\"},"
                             "\"updatedAt\":\"" at "\""
                             (if (equal state "blocked")
                                 (concat ",\"waitingFor\":{\"kind\":\"permission\",\"tool\":\"Bash\","
                                         "\"detail\":\"rm -rf build\",\"since\":\"" at "\"}")
                               "")
                             "}\n"))
               (file (expand-file-name (concat (secure-hash 'sha256 session) ".json") dir)))
          (write-region json nil file nil 'silent)
          (set-file-modes file #o600))))
    (advice-add 'agentstatus--filter :around #'agentstatus-bench--timed)
    (unwind-protect
        (progn
          (agentstatus-mode 1)
          (agentstatus-bench--wait (lambda () (= (hash-table-count agentstatus--sessions) n)) 60)
          (agentstatus-bench--wait (lambda () agentstatus--synced) 10)
          (message "read-process-output-max: %d; mode line:%s; blocked hook ran %d times"
                   read-process-output-max agentstatus--mode-line hooks)
          (agentstatus-bench--report "snapshot burst, 10,000 lines from statusls" agentstatus-bench--calls)
          (advice-remove 'agentstatus--filter #'agentstatus-bench--timed)
          (let ((stale (concat
                        (mapconcat (lambda (l) (replace-regexp-in-string
                                                "\\`{\"event\":\"snapshot\"" "{\"event\":\"stale\"" l))
                                   (split-string (apply #'concat (reverse agentstatus-bench--lines)) "\n" t)
                                   "\n")
                        "\n")))
            (agentstatus-mode -1)
            (dolist (chunk '(4096 65536))
              (agentstatus--clear)
              (let ((agentstatus--process 'bench))
                (agentstatus--filter 'bench (apply #'concat (reverse agentstatus-bench--lines))))
              (unless (= (hash-table-count agentstatus--sessions) n)
                (error "Sessions: %d" (hash-table-count agentstatus--sessions)))
              (agentstatus-bench--feed (format "stale burst, 10,000 lines in %d-byte chunks" chunk)
                                       stale chunk)
              (unless (= (hash-table-count agentstatus--sessions) 0)
                (error "Sessions left: %d" (hash-table-count agentstatus--sessions))))
            (let ((c0 (float-time (get-internal-run-time))))
              (garbage-collect)
              (message "one garbage collection of this Emacs with 10,000 sessions: %.1f ms CPU"
                       (* 1000 (- (float-time (get-internal-run-time)) c0))))
            ;; The list with 10,000 rows.
            (let ((agentstatus--process 'bench))
              (agentstatus--filter 'bench (apply #'concat (reverse agentstatus-bench--lines))))
            (let ((agentstatus-mode t))
              (with-current-buffer (get-buffer-create agentstatus--list-buffer)
                (agentstatus-list-mode))
              (let ((t0 (float-time)) (c0 (float-time (get-internal-run-time))))
                (agentstatus--list-update)
                (message "list redraw with %d rows: %.0f ms wall, %.0f ms CPU"
                         (hash-table-count agentstatus--sessions)
                         (* 1000 (- (float-time) t0))
                         (* 1000 (- (float-time (get-internal-run-time)) c0)))))))
      (advice-remove 'agentstatus--filter #'agentstatus-bench--timed)
      (agentstatus-mode -1)
      (delete-directory home t))))

(provide 'agentstatus-bench)
;;; agentstatus-bench.el ends here
