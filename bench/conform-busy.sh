#!/usr/bin/env bash
# conform-busy.sh: false failures of the conformance suite on a busy
# machine. Runs the reader suite and the publisher suite N times each
# against the Python adapters (which pass every case and check on a quiet
# machine, so every failure here is a false one) while four busy loops per
# processor keep the cores busy for the whole run, and counts the failures.
#
#   bash bench/conform-busy.sh [N] [PYTHON]    (default N=10; PYTHON: python3)
#   SUITES=publisher bash bench/conform-busy.sh 3     (one suite only)
#
# Prints one line per run (suite, failures, seconds, the failed ids) and
# a total per suite. Exit status 1 when any run had a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
py=${2:-python3}
# The interpreter itself, not a launcher script in front of it (pyenv's
# shim would cost every start a shell): a fair measure of the suite, not
# of the shim. Pass a shim explicitly to measure that too.
py=$("$py" -c 'import sys; print(sys.executable)')
work=$(mktemp -d)
busy=()
cleanup() {
	for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/statusconform" ./cmd/statusconform
ncpu=$(getconf _NPROCESSORS_ONLN)
for ((i = 0; i < 4 * ncpu; i++)); do
	bash -c 'while :; do :; done' &
	busy+=($!)
done
echo "# $n runs of each suite, ${#busy[@]} busy loops on $ncpu processors, $($py --version 2>&1)"

# one SUITE I: runs the suite once, prints its line, adds to the totals.
declare -A failed=([reader]=0 [publisher]=0) bad=([reader]=0 [publisher]=0)
one() {
	local suite=$1 i=$2 script t0 t1 f ids
	script=conformance/adapters/python/status_$suite.py
	t0=$EPOCHREALTIME
	"$work/statusconform" "$suite" --json "$work/$suite.json" -- "$py" "$script" >"$work/$suite.txt" || true
	t1=$EPOCHREALTIME
	f=$(sed -n 's/^  "failed": \([0-9]*\),$/\1/p' "$work/$suite.json")
	ids=$(sed -n 's/^FAIL //p' "$work/$suite.txt" | tr '\n' ' ')
	printf '%-9s run %2d: %3d failed in %5.1fs  %s\n' "$suite" "$i" "$f" "$(awk "BEGIN { print $t1 - $t0 }")" "$ids"
	if [ "$f" != 0 ]; then
		grep '^    failure: ' "$work/$suite.txt" | head -5 || true
		bad[$suite]=$((bad[$suite] + 1))
	fi
	failed[$suite]=$((failed[$suite] + f))
}
suites=${SUITES:-reader publisher}
for ((i = 1; i <= n; i++)); do
	for s in $suites; do one "$s" "$i"; done
done
for s in $suites; do
	echo "$s: ${failed[$s]} false failures in $n runs (${bad[$s]} runs with any)"
done
[ "${failed[reader]}" = 0 ] && [ "${failed[publisher]}" = 0 ]
