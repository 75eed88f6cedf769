#!/bin/sh
# Times statusls (TSV, piped) against the published jq one-liner and the
# floor program (bench/floor: open, fstat and read every file,
# single-threaded, relative to the directory's descriptor) over 100, 1,000
# and 10,000 generated sessions, side by side in one run. Prints medians,
# ratios and statusls's peak memory, and checks that statusls and the
# one-liner printed the same bytes.
#
#   bench/statusls.sh [-sizes 100,1000,10000] [-reps 11]
#
# Needs Go and jq. The machine should be otherwise idle; on a noisy one,
# raise -reps.
set -eu
cd "$(dirname "$0")/.."
. bench/lib/out.sh
go build -o "$out/statusls" ./cmd/statusls
go build -o "$out/floor" ./bench/floor
go build -o "$out/harness" ./bench/harness
machine
jq --version
exec "$out/harness" -statusls "$out/statusls" -floor "$out/floor" "$@"
