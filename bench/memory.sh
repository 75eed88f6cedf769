#!/bin/sh
# Measures statusls's peak memory and wall time next to the floor program
# (bench/floor), side by side in one run:
#
#   - over 3,000 records of 60 KiB each, made long by their titles (which
#     readers cut at 4,096 UTF-16 units): statusls --all and
#     statusls --all --jq '.[]', against the targets of at most 30 MiB of
#     peak RSS and 2x the floor's median wall time;
#   - over 100 ordinary records: statusls, against 1.2x the floor's.
#
#   bench/memory.sh [-files 3000] [-size 61440] [-title ascii|utf8] [-sessions 100] [-reps 11] [-small-reps 101]
#
# Exits 1 when a figure is over its target. Needs Go. The machine should be
# otherwise idle; on a noisy one, raise the repetitions.
set -eu
cd "$(dirname "$0")/.."
. bench/lib/out.sh
go build -o "$out/" ./cmd/statusls ./cmd/statusls-jq
go build -o "$out/floor" ./bench/floor
go build -o "$out/memory" ./bench/memory
machine
status=0
"$out/memory" -statusls "$out/statusls" -floor "$out/floor" "$@" || status=$?
echo "load after: $(load)"
exit $status
