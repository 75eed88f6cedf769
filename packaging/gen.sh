#!/bin/sh
# Writes the man pages and the shell completions that the release's
# archives and packages carry into out/release/, from the commands
# themselves (statusls __man DIR, statusls completion SHELL, ...): they
# are generated at release time, never checked in.
# GoReleaser runs it as a before hook (.goreleaser.yaml), with the
# release's version and commit date (RFC 3339) as arguments; they date the
# Debian changelog, so the packages are the same bytes for the same commit.
set -eu
version=${1:-0.0.0}
date=${2:-1970-01-01T00:00:00Z}
cd "$(dirname "$0")/.."
out=out/release
rm -rf "$out"
mkdir -p "$out/bin" "$out/man" "$out/man.gz" "$out/completions"
# Built for this machine with the flags of the release, so that the
# pages do not depend on where the tree is.
CGO_ENABLED=0 go build -trimpath -o "$out/bin/" ./cmd/statusls ./cmd/statuspub ./cmd/statusconform
for cmd in statusls statuspub statusconform; do
	"$out/bin/$cmd" __man "$out/man"
	"$out/bin/$cmd" completion bash >"$out/completions/$cmd.bash"
	"$out/bin/$cmd" completion zsh >"$out/completions/_$cmd"
	"$out/bin/$cmd" completion fish >"$out/completions/$cmd.fish"
done
# Debian's policy wants man pages compressed with gzip -9n (no name, no
# time: the same bytes every time).
for page in "$out"/man/*.1; do
	gzip -9n <"$page" >"$out/man.gz/${page##*/}.gz"
done
# The .deb's changelog (usr/share/doc/agentstatus/changelog.gz): one
# entry for this release, pointing to the project's own change log.
{
	echo "agentstatus ($(echo "$version" | sed 's/-/~/')) unstable; urgency=medium"
	echo
	echo "  * Release $version; see docs/changelog.md and the release notes."
	echo
	echo " -- The agentstatus authors <agentstatus@users.noreply.github.com>  $(date -u -d "$date" '+%a, %d %b %Y %H:%M:%S +0000')"
} | gzip -9n >"$out/changelog.gz"
rm -rf "$out/bin"
echo "gen.sh: $(ls "$out/man" | wc -l) man pages, $(ls "$out/completions" | wc -l) completion scripts in $out"
