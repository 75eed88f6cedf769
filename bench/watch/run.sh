#!/bin/sh
# Runs the watch benchmark as published (see main.go for what one run
# measures). From anywhere: bench/watch/run.sh [REPS]. Takes about 45
# minutes with the default 5 repetitions; prints each run and the medians.
set -eu
cd "$(dirname "$0")/../.."
reps=${1:-5}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/watchbench" ./bench/watch
go version
uname -srm
nproc

for n in 100 1000; do
	echo "== $n sessions, heartbeat 10 s"
	"$bin/watchbench" -sessions "$n" -idle 60s -reps "$reps"
	echo "== the floor: a process that only drains fsnotify, $n sessions"
	"$bin/watchbench" -floor -sessions "$n" -idle 60s -reps "$reps"
done
echo "== 1000 sessions, watcher process with GOMAXPROCS=1"
"$bin/watchbench" -sessions 1000 -idle 60s -reps "$reps" -watcher-procs 1
echo "== 10000 sessions (peak memory)"
"$bin/watchbench" -sessions 10000 -idle 30s -reps 3
