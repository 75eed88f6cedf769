#!/bin/sh
# The Emacs package (examples/emacs): its ERT tests in emacs --batch against
# statusls and statuspub built from this tree, package-lint and checkdoc
# (any report fails the step), and the filter's benchmark figures.
# Installs Debian's emacs-nox and elpa-package-lint when they are missing.
set -eu
cd "$(dirname "$0")/.."

need=""
command -v emacs >/dev/null 2>&1 || need="$need emacs-nox"
ls -d /usr/share/emacs/site-lisp/elpa/package-lint-* >/dev/null 2>&1 || need="$need elpa-package-lint"
if [ -n "$need" ]; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	echo "installing:$need"
	$SUDO apt-get update
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $need
fi

sh examples/emacs/check.sh
