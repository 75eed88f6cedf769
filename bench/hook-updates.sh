#!/usr/bin/env bash
# hook-updates.sh: are hook updates ever lost under load? (issue 14, 5)
#
# Starts OWNERS heartbeat owners (one per session, heartbeat HB), then
# fires UPDATES concurrent updates of ONE other session, twice:
#   1. `statuspub set --title t-I`: counts those that exit 0 with nothing
#      on stderr (an update that is not applied says so on stderr); the
#      last one is started once all the others have started (stamped
#      their update), and the record's title must be its own, whichever
#      took the lock last;
#   2. `statuspub claude-hook` TaskCreated events, each adding a task:
#      the session's task list then proves how many read-modify-writes
#      were applied (none may be lost).
# Bounded: about 30-60 s on a 2-core machine with the defaults.
#
#   bash bench/hook-updates.sh            OWNERS=1000 UPDATES=200 HB=1s
set -euo pipefail
cd "$(dirname "$0")/.."
owners=${OWNERS:-1000}
updates=${UPDATES:-200}
. bench/lib/stand-in-agent.sh

t0=$EPOCHREALTIME
seq 1 "$owners" | xargs -P 8 -I{} "$pub" set --dir "$dir" --session "owner-{}" --pid "$agent" --state working --title heartbeat
for _ in $(seq 300); do
	n=$(find "$dir" -name '.*.owner' | wc -l)
	[ "$n" -ge "$owners" ] && break
	sleep 0.1
done
printf 'owners running: %d (started in %.1f s), heartbeat %s\n' "$n" "$(echo "$EPOCHREALTIME - $t0" | bc)" "$STATUSPUB_HEARTBEAT"

"$pub" set --dir "$dir" --session hot --pid "$agent" --state working --title t-0
mkdir "$work/set"
one_set() {
	"$pub" set --dir "$dir" --session hot --pid "$agent" --title "t-$1" 2>"$work/set/err.$1"
	echo $? >"$work/set/rc.$1"
	echo "$EPOCHREALTIME" >"$work/set/end.$1"
}
export -f one_set
t0=$EPOCHREALTIME
# UPDATES-1 at once; the last one a second later, once all of them have
# started (and stamped their update) but, under load, not all finished.
seq 1 $((updates - 1)) | xargs -P "$updates" -I{} bash -c 'one_set {}' &
many=$!
# Every set stamps its update before it opens the session's lock file:
# start the last one once each of the others has finished or holds the
# lock file open (waiting for the lock).
lockfile=.$(printf hot | sha256sum | cut -c1-64).lock
for _ in $(seq 600); do
	done_n=$(find "$work/set" -name 'end.*' | wc -l)
	wait_n=0
	for fd in $(find /proc/[0-9]*/fd -lname "*/$lockfile" 2>/dev/null | cut -d/ -f3 | sort -u); do
		tr '\0' ' ' 2>/dev/null </proc/$fd/cmdline | grep -q -- '--title t-' && wait_n=$((wait_n + 1))
	done
	[ $((done_n + wait_n)) -ge $((updates - 1)) ] && break
	sleep 0.05
done
printf 'before the last set: %d finished, %d waiting for the lock\n' "$done_n" "$wait_n"
one_set "$updates"
wait $many
elapsed=$(echo "$EPOCHREALTIME - $t0" | bc)
ok=0
for i in $(seq 1 "$updates"); do
	if [ "$(cat "$work/set/rc.$i")" = 0 ] && [ ! -s "$work/set/err.$i" ]; then ok=$((ok + 1)); fi
done
lastend=$(cat "$work/set/end.$updates")
overtaking=0
for i in $(seq 1 $((updates - 1))); do
	if [ "$(echo "$(cat "$work/set/end.$i") > $lastend" | bc)" = 1 ]; then overtaking=$((overtaking + 1)); fi
done
title=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["task"]["title"])' "$dir/$(printf hot | sha256sum | cut -c1-64).json")
printf 'set: %d/%d applied (exit 0, nothing on stderr) in %.1f s; %d finished after the last-started one; record title %s: %s\n' \
	"$ok" "$updates" "$elapsed" "$overtaking" "$title" "$([ "$title" = "t-$updates" ] && echo "the last started wins" || echo "WRONG: want t-$updates")"
cat "$work"/set/err.* | sort | uniq -c | head -5

"$pub" set --dir "$dir" --session tasks --pid "$agent" --state working
mkdir "$work/hook"
t0=$EPOCHREALTIME
seq 1 "$updates" | xargs -P "$updates" -I{} sh -c '
	printf "{\"session_id\":\"tasks\",\"hook_event_name\":\"TaskCreated\",\"task_id\":\"%s\",\"task_subject\":\"task %s\",\"cwd\":\"/\"}" "$1" "$1" |
		"$pub" claude-hook --dir "$dir" --pid "$agent" 2>"$work/hook/err.$1"; echo $? >"$work/hook/rc.$1"' sh {}
elapsed=$(echo "$EPOCHREALTIME - $t0" | bc)
tasks=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tasks"]))' "$dir/.$(printf tasks | sha256sum | cut -c1-64).tasks")
silent=0
for i in $(seq 1 "$updates"); do
	if [ "$(cat "$work/hook/rc.$i")" = 0 ] && [ ! -s "$work/hook/err.$i" ]; then silent=$((silent + 1)); fi
done
printf 'claude-hook TaskCreated: %d/%d tasks in the task list (%d exited 0 silently) in %.1f s\n' "$tasks" "$updates" "$silent" "$elapsed"
