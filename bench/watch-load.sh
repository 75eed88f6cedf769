#!/bin/sh
# watch-load.sh: watch events under load, bounded (about 60 s): 1000
# publishers heartbeating every second into one directory while the
# watcher (a child process) times rename->event for paced and burst
# writes and Set->event for publisher changes. "missed" counts events
# that never came. See bench/watch/main.go; bench/watch/run.sh is the
# long published run.
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/watch -sessions "${SESSIONS:-1000}" -heartbeat "${HB:-1s}" -idle 5s -paced 300 -burst 2000 -set 300
