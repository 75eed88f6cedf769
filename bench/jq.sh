#!/bin/sh
# Measures statusls's jq modes, side by side in one run:
#
#   bench/jq.sh startup [-reps 201]
#       the start-up cost gojq adds to every process (an empty program with
#       and without gojq), and statusls (no gojq) against statusls-jq (the
#       same code with gojq linked) and the floor, at 100 sessions;
#   bench/jq.sh memory [-sizes 2000,20000] [-pad pad|cwd] [-before BIN]
#       peak RSS and wall time of --jq-files, --jq and --json over N status
#       files of 64 KiB each (-before: an older statusls to compare).
#
# Needs Go. The machine should be otherwise idle.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-startup}
[ $# -gt 0 ] && shift
. bench/lib/out.sh
go build -o "$out/" ./cmd/statusls ./cmd/statusls-jq
go build -o "$out/floor" ./bench/floor
go build -o "$out/empty" ./bench/startup/empty
go build -o "$out/empty-gojq" ./bench/startup/gojq
go build -o "$out/jqbench" ./bench/jq
machine
exec "$out/jqbench" -mode "$mode" -statusls "$out/statusls" -helper "$out/statusls-jq" \
	-floor "$out/floor" -empty "$out/empty" -gojq "$out/empty-gojq" "$@"
