#!/bin/sh
# Benchmarks of statusls --host (package remote), against a real sshd of
# the tests' own (internal/sshtest) on this machine, with ten hosts that
# are aliases of it, each with its own status directory of ten sessions.
#
#   sh bench/remote.sh [COUNT]     (default 3)
#
# BenchmarkRemoteList times whole statusls processes: the local listing,
# --host h1, and --host h1,...,h10, with connection reuse (the shared
# connections are opened before the timer: a status bar's steady state).
# BenchmarkRemoteWatchLatency times, over ten hosts, a publisher's rename
# to its line on statusls watch --host's merged stream ("merged"), to the
# line of a statusls watch --json run directly on that directory
# ("direct": the remote stream's own line), and the difference ("hop":
# what ssh and the merge add to the remote stream's line).
#
# Note: here the "hosts" run on this machine's cores, so every host's
# statusls and sshd session competes with the listing itself; on real
# hosts that work is done elsewhere. BENCH_PARTS=1 adds the parts of one
# host's listing. Needs sshd (apt-get install openssh-server).
set -eu
cd "$(dirname "$0")/.."
count=${1:-3}
echo "# $(date -u +%FT%TZ) $(uname -sm), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# go test -run XXX -bench BenchmarkRemoteList -benchtime 30x -count $count ./remote"
AGENTSTATUS_REQUIRE_TOOLS=1 go test -run XXX -bench 'BenchmarkRemoteList$' -benchtime 30x -count "$count" ./remote | grep -E '^Benchmark|^ok|FAIL'
echo "# go test -run XXX -bench BenchmarkRemoteWatchLatency -benchtime 200x -count $count ./remote"
AGENTSTATUS_REQUIRE_TOOLS=1 go test -run XXX -bench 'BenchmarkRemoteWatchLatency$' -benchtime 200x -count "$count" ./remote | grep -E '^Benchmark|^ok|FAIL'
