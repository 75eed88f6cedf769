;;; agentstatus-lint.el --- package-lint and checkdoc, failing on any report -*- lexical-binding: t; no-byte-compile: t; -*-

;;; Commentary:

;; Run by check.sh: Emacs in batch mode loads this file with the
;; package's main file and then other files as arguments.  The main file
;; goes through `package-lint-buffer', every file through
;; `checkdoc-file'; every report is printed, and Emacs exits 1 if there
;; is one.
;;
;; One report of package-lint is set aside, and said so: package-lint
;; up to 0.16 (Debian 12's elpa-package-lint) was written before Emacs
;; 28.1 was released and calls any Package-Requires of Emacs 28 or later
;; "uninstallable in all released Emacs versions".  The package needs
;; Emacs 28.1 (`string-search', `json-available-p'), so the header says
;; so; later package-lint versions, which know that Emacs 28 is
;; released, do not report it.

;;; Code:

(require 'package)
(require 'checkdoc)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'package-lint)

(defvar agentstatus-lint--reports 0 "The number of reports so far.")

(defun agentstatus-lint--count (&rest _)
  "Count one report of checkdoc."
  (setq agentstatus-lint--reports (1+ agentstatus-lint--reports)))

(defun agentstatus-lint--known-p (report)
  "Return non-nil when REPORT is the Emacs 28 one of an old package-lint."
  (and (string-match-p "\\`This makes the package uninstallable in all released Emacs versions\\.\\'"
                       (nth 3 report))
       (version<= (agentstatus-lint--package-lint-version) "0.16")))

(defun agentstatus-lint--package-lint-version ()
  "Return the version of the loaded package-lint."
  (let ((desc (cadr (assq 'package-lint package-alist))))
    (if desc (package-version-join (package-desc-version desc)) "0")))

(let ((main (pop command-line-args-left)))
  (with-temp-buffer
    (insert-file-contents main)
    (emacs-lisp-mode)
    (dolist (r (package-lint-buffer))
      (if (agentstatus-lint--known-p r)
          (message "%s:%d:%d: %s: %s (set aside: package-lint %s predates Emacs 28.1)"
                   main (nth 0 r) (nth 1 r) (nth 2 r) (nth 3 r) (agentstatus-lint--package-lint-version))
        (setq agentstatus-lint--reports (1+ agentstatus-lint--reports))
        (message "%s:%d:%d: %s: %s" main (nth 0 r) (nth 1 r) (nth 2 r) (nth 3 r)))))
  (message "package-lint %s: %s: %d reports" (agentstatus-lint--package-lint-version) main agentstatus-lint--reports)
  (push main command-line-args-left))

(let ((before agentstatus-lint--reports))
  (advice-add 'checkdoc-error :before #'agentstatus-lint--count)
  (setq checkdoc-spellcheck-documentation-flag nil)
  (while command-line-args-left
    (checkdoc-file (pop command-line-args-left)))
  (message "checkdoc: %d reports" (- agentstatus-lint--reports before)))
(kill-emacs (if (= agentstatus-lint--reports 0) 0 1))

;;; agentstatus-lint.el ends here
