#!/bin/sh
# Runs the Emacs package's checks: the ERT tests in emacs --batch against
# statusls and statuspub built from this tree into a temporary directory,
# then package-lint and checkdoc, which must report nothing, then the
# filter's benchmark (a figure, not a pass/fail). Needs emacs (28.1+) and
# package-lint (Debian: emacs-nox, elpa-package-lint); .ci/emacs.sh
# installs them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

emacs --version | head -n 1
echo "building statusls and statuspub into $tmp"
(cd "$root" && go build -o "$tmp" ./cmd/statusls ./cmd/statuspub)

# The package is byte-compiled (warnings are errors) and the tests and the
# benchmark load the compiled file, as an installed package runs.
echo "byte-compile (warnings are errors)"
mkdir "$tmp/lisp"
cp "$here/agentstatus.el" "$tmp/lisp/"
emacs -Q --batch --eval '(setq byte-compile-error-on-warn t)' \
	-f batch-byte-compile "$tmp/lisp/agentstatus.el"

echo "ERT tests"
AGENTSTATUS_TEST_BIN=$tmp HOME=$tmp emacs -Q --batch -L "$tmp/lisp" \
	-l "$here/agentstatus-tests.el" -f ert-run-tests-batch-and-exit

echo "package-lint and checkdoc (any report fails)"
(cd "$here" && emacs -Q --batch -l lint.el agentstatus.el agentstatus-tests.el agentstatus-bench.el lint.el)

echo "benchmark: the filter under a burst of 10,000 watch lines"
HOME=$tmp AGENTSTATUS_TEST_BIN=$tmp emacs -Q --batch -L "$tmp/lisp" \
	-l "$here/agentstatus-bench.el" -f agentstatus-bench-run
