#!/usr/bin/env bash
# acp.sh: what statuspub acp costs an editor. The latency of one message
# through the proxy against a plain pipe to the same echo agent, taking
# turns (BenchmarkLatency: p50 and p99 of the round trip each way, and the
# added p99 per message, half the difference: the proxy is crossed
# twice), and the memory the proxy's copy allocates per message of 1 KiB
# to 64 MiB (BenchmarkCopyMemory, B/op: flat once a message is longer than
# the 1 MiB it parses).
#
#   bash bench/acp.sh [N]      (default N=5000 round trips, 3 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5000}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
go test -run '^$' -bench 'Latency' -benchtime "${n}x" -count 3 ./internal/acpbridge/ | grep -E '^Benchmark'
go test -run '^$' -bench 'CopyMemory' -benchmem -benchtime 3x ./internal/acpbridge/ | grep -E '^Benchmark'
