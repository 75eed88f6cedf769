#!/usr/bin/env bash
# hook-init.sh: the package initialisation of `statuspub claude-hook`, the
# program every agent starts on every hook event, side by side with three
# floors: an empty Go program (bench/startup/empty); one that imports only
# os, the floor of any Go program that opens a file (os reaches
# internal/godebug through time, whose init alone costs 0.3-0.6 ms); and
# one that links only the standard library the hook cannot do without (os,
# os/signal, encoding/json, crypto/sha256, time). Given OLD, another
# statuspub binary (an earlier build), it runs that too, in the same
# rounds. Each runs N times, interleaved, under GODEBUG=inittrace=1;
# prints the median and p90 of the summed "ms clock" of every package
# init, then statuspub's packages by median init time. With strace, it also compares the files statuspub opens
# before its first read of stdin with the empty program's: they must be
# the same (the Go runtime's own), or the script exits 1.
#
#   bash bench/hook-init.sh [N [OLD]]      (default N=300)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
old=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/statuspub" ./cmd/statuspub
go build -o "$work/empty" ./bench/startup/empty
mkdir "$work/osfloor" "$work/stdfloor"
cat >"$work/osfloor/main.go" <<'GO'
package main

import "os"

func main() { os.Stdout.Write(nil) }
GO
(cd "$work/osfloor" && go mod init osfloor >/dev/null 2>&1 && go build -o "$work/osonly" .)
cat >"$work/stdfloor/main.go" <<'GO'
package main

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"os/signal"
	"time"
)

func main() {
	signal.Ignore()
	b, _ := json.Marshal(sha256.Sum256([]byte(time.Now().String())))
	os.Stdout.Write(b[:0])
}
GO
(cd "$work/stdfloor" && go mod init stdfloor >/dev/null 2>&1 && go build -o "$work/floor" .)

# inits PROG...: one run's init lines.
inits() { GODEBUG=inittrace=1 "$@" </dev/null 2>&1 >/dev/null | grep '^init ' || true; }

for ((i = 0; i < n; i++)); do
	inits "$work/empty" | awk '{ s += $5 } END { printf "%.3f\n", s }' >>"$work/empty.sum"
	inits "$work/osonly" | awk '{ s += $5 } END { printf "%.3f\n", s }' >>"$work/osonly.sum"
	inits "$work/floor" | awk '{ s += $5 } END { printf "%.3f\n", s }' >>"$work/floor.sum"
	inits "$work/statuspub" claude-hook >"$work/run"
	awk '{ s += $5 } END { printf "%.3f\n", s }' "$work/run" >>"$work/pub.sum"
	awk '{ print $2, $5 }' "$work/run" >>"$work/pub.pkgs"
	if [ -n "$old" ]; then
		inits "$old" claude-hook | awk '{ s += $5 } END { printf "%.3f\n", s }' >>"$work/old.sum"
	fi
done
stats() {
	sort -n "$2" | awk -v name="$1" '{ d[NR] = $1 } END {
		printf "%-44s median %6.3f ms   p90 %6.3f ms   (%d runs)\n", name, d[int((NR + 1) / 2)], d[int(NR * 0.9)], NR }'
}
echo "summed package init (GODEBUG=inittrace=1):"
stats "empty program" "$work/empty.sum"
stats "os-only program (os.Stdout.Write)" "$work/osonly.sum"
stats "stdlib floor (os, signal, json, sha256)" "$work/floor.sum"
stats "statuspub claude-hook" "$work/pub.sum"
if [ -n "$old" ]; then
	stats "OLD statuspub claude-hook" "$work/old.sum"
fi
echo "statuspub claude-hook, packages with init work, median ms:"
sort -k1,1 -k2,2n "$work/pub.pkgs" | awk '{ k[NR] = $1; v[NR] = $2 } END {
	for (i = 1; i <= NR; i = j) { for (j = i; j <= NR && k[j] == k[i]; j++) {} ; m = v[int((i + j - 1) / 2)]; if (m > 0) printf "  %-58s %.3f\n", k[i], m } }' | sort -k2 -rn

if ! command -v strace >/dev/null; then
	echo "strace not installed: files opened before main not checked"
	exit 0
fi
# opened PROG...: the files PROG opens (openat) before it first reads stdin.
opened() {
	strace -f -qq -o "$work/trace" -e trace=openat,read "$@" </dev/null >/dev/null 2>&1 || true
	awk '/read\(0,/ { exit } /openat\(/ { match($0, /"[^"]*"/); print substr($0, RSTART, RLENGTH) }' "$work/trace" | sort -u
}
opened "$work/empty" >"$work/empty.open"
opened "$work/statuspub" claude-hook >"$work/pub.open"
if extra=$(comm -13 "$work/empty.open" "$work/pub.open") && [ -n "$extra" ]; then
	echo "FAIL: statuspub claude-hook opens files before main that an empty program does not:"
	echo "$extra"
	exit 1
fi
echo "files opened before main: the same as the empty program's ($(paste -sd ' ' "$work/empty.open"))"
