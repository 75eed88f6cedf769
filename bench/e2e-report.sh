#!/bin/sh
# The README's table of wrong-state seconds: runs the real-agent harness
# (internal/e2e) with the commands of an earlier revision ("before") and
# with the working tree's ("after"), and prints agent × scenario × step
# with how long the status disagreed with the screen in each. As root, with
# npm reachable for the first install of the pinned agents.
#
#   sh bench/e2e-report.sh [BEFORE_REV]    (default 1637fee: before issue 18)
set -eu
cd "$(dirname "$0")/.."
rev=${1:-1637fee}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/src" "$rev" >/dev/null 2>&1
(cd "$tmp/src" && go build -o "$tmp/bin/" ./cmd/...)
export AGENTSTATUS_E2E=1
AGENTSTATUS_E2E_BIN="$tmp/bin" AGENTSTATUS_E2E_REPORT="$tmp/before" \
	go test ./internal/e2e -count=1 -timeout 60m >"$tmp/before.log" 2>&1 || true
AGENTSTATUS_E2E_REPORT="$tmp/after" \
	go test ./internal/e2e -count=1 -timeout 60m >"$tmp/after.log" 2>&1 || true
go run ./bench/e2ereport "$tmp/before" "$tmp/after"
