#!/usr/bin/env bash
# hook-sets.sh: concurrent `statuspub set`s of many sessions, two at once
# per session: every record must be written as set, and every session
# must end up with exactly one heartbeat owner (SPEC.md H3).
# Bounded: about 30-60 s on a 2-core machine with the defaults.
#
#   bash bench/hook-sets.sh            SESSIONS=1000 PARALLEL=200
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${SESSIONS:-1000}
parallel=${PARALLEL:-200}
. bench/lib/stand-in-agent.sh

t0=$EPOCHREALTIME
# Two sets per session, interleaved so that they run at the same time.
{ seq 1 "$sessions"; seq 1 "$sessions"; } | sort -n | xargs -P "$parallel" -I{} sh -c '
	"$pub" set --dir "$dir" --session "s-$1" --pid "$agent" --state working --title "t-$1" || echo "exit $? for s-$1" >&2' sh {} 2>"$work/err"
elapsed=$(echo "$EPOCHREALTIME - $t0" | bc)
for _ in $(seq 100); do
	owners=$(pgrep -f -- "owner --dir $dir" | wc -l)
	[ "$owners" -ge "$sessions" ] && break
	sleep 0.1
done
sleep 2 # a second owner for a session would have started by now
owners=$(pgrep -f -- "owner --dir $dir" | wc -l)
distinct=$(for p in $(pgrep -f -- "owner --dir $dir"); do tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | sed 's/.*--session //'; echo; done | sort -u | grep -c . || true)
correct=$(python3 - "$dir" "$sessions" <<'PY'
import json, hashlib, sys
d, n = sys.argv[1], int(sys.argv[2])
ok = 0
for i in range(1, n + 1):
    s = "s-%d" % i
    try:
        r = json.load(open("%s/%s.json" % (d, hashlib.sha256(s.encode()).hexdigest())))
    except OSError:
        continue
    ok += r["session"] == s and r["state"] == "working" and (r.get("task") or {}).get("title") == "t-%d" % i
print(ok)
PY
)
printf '%d sets (2 per session, %d at once) in %.1f s: %d/%d records correct, %d owner processes for %d sessions (%d distinct), %d errors\n' \
	$((2 * sessions)) "$parallel" "$elapsed" "$correct" "$sessions" "$owners" "$sessions" "$distinct" "$(wc -l <"$work/err")"
