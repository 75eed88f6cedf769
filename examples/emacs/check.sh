#!/bin/sh
# Runs the Emacs package's checks: the ERT tests in emacs --batch against
# statusls and statuspub built from this tree into a temporary directory,
# then package-lint and checkdoc, which must report nothing, then the
# filter's benchmark (a figure, not a pass/fail), and one emacs -nw in tmux for
# the mode line on a real screen. Needs emacs (28.1+) and
# package-lint (Debian: emacs-nox, elpa-package-lint); .ci/emacs.sh
# installs them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'tmux -S "$tmp/tmux" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM

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

# batch mode draws no mode line (format-mode-line gives ""): one run of
# emacs -nw in tmux shows that the summary reaches a real one.
echo "the mode line of emacs -nw in tmux"
if command -v tmux >/dev/null 2>&1; then
	sock="$tmp/tmux"
	dir="$tmp/term/agent-status"
	"$tmp/statuspub" set --strict --dir "$dir" --session t1 --state blocked --pid 0
	"$tmp/statuspub" set --strict --dir "$dir" --session t2 --state working --pid 0
	HOME=$tmp tmux -S "$sock" new-session -d -x 120 -y 10 \
		emacs -nw -Q -L "$tmp/lisp" --eval "(progn (require 'agentstatus) (setq agentstatus-statusls-program \"$tmp/statusls\" agentstatus-directory \"$dir\") (agentstatus-mode 1))"
	wait_screen() { # TEXT: poll the screen for TEXT, at most 20 s
		i=0
		until tmux -S "$sock" capture-pane -p | grep -F -q -- "$1"; do
			i=$((i + 1))
			if [ $i -gt 200 ]; then
				echo "the mode line does not show '$1' within 20 s:"
				tmux -S "$sock" capture-pane -p
				tmux -S "$sock" kill-server
				exit 1
			fi
			sleep 0.1
		done
		echo "shown: $1"
	}
	wait_screen "1 blocked · 1 working"
	"$tmp/statuspub" clear --strict --dir "$dir" --session t1
	wait_screen "1 working--"
	tmux -S "$sock" kill-server
elif [ "${AGENTSTATUS_REQUIRE_TOOLS:-}" = 1 ]; then
	echo "tmux is required"
	exit 1
else
	echo "skipped: tmux not installed"
fi

echo "package-lint and checkdoc (any report fails)"
(cd "$here" && emacs -Q --batch -l agentstatus-lint.el agentstatus.el agentstatus-tests.el agentstatus-bench.el agentstatus-lint.el)

echo "benchmark: the filter under a burst of 10,000 watch lines"
HOME=$tmp AGENTSTATUS_TEST_BIN=$tmp emacs -Q --batch -L "$tmp/lisp" \
	-l "$here/agentstatus-bench.el" -f agentstatus-bench-run
