#!/bin/sh
# Times statusls metrics (and --per-session, --textfile) against
# statusls --count over one generated directory of 10,000 sessions,
# interleaved, side by side in one run: median wall time and peak RSS,
# with ratios to --count. The issue's standard: metrics costs no more than
# --count plus the formatting (docs/fleet.md has the figures).
#
#   bench/metrics.sh [-sessions 10000] [-reps 21]
#
# Needs Go. The machine should be otherwise idle; on a noisy one, raise
# -reps.
set -eu
cd "$(dirname "$0")/.."
. bench/lib/out.sh
go build -o "$out/statusls" ./cmd/statusls
go build -o "$out/metrics" ./bench/metrics
machine
"$out/metrics" -statusls "$out/statusls" "$@"
echo "load after: $(load)"
