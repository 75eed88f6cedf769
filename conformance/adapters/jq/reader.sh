#!/bin/sh
# The reader of the published page ("Read per-session agent status") as a
# conformance-suite adapter. Usage: STATUS_DIR=... STATUSCONFORM_NOW=... sh reader.sh
#
# The filter is the published one-liner, with two changes and nothing else:
#
# 1. `now` is redefined to read STATUSCONFORM_NOW, the time the suite runs
#    the case at, instead of the real clock. Like jq's own `now` it keeps
#    the fraction of a second: whole seconds from fromdateiso8601 (which
#    cannot parse fractions) plus the fraction read separately.
# 2. The last step prints a JSON object per session (-c) instead of a TSV
#    row (-r ... | @tsv), since the suite compares pid and cwd too, which the
#    TSV row does not hold. The title is the one-liner's `.task.title // ""`
#    (the suite reads "" as "no title").
#
# Like the one-liner, it discards jq's error messages; and since the
# one-liner's exit status is not part of what it shows (a status line
# ignores it), this adapter exits 0 once jq has run. So it cannot report an
# error as SPEC.md R23 requires (a non-zero exit status or a line on
# standard error): the cases that expect one are among its expected
# failures (expected-failures.txt), as the published one-liner's own.
command -v jq >/dev/null 2>&1 || { echo "reader.sh: jq not found" >&2; exit 127; }
: "${STATUS_DIR:?reader.sh: STATUS_DIR is not set}"
: "${STATUSCONFORM_NOW:?reader.sh: STATUSCONFORM_NOW is not set}"

jq -c 'def now: $ENV.STATUSCONFORM_NOW
    | (sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)
      + ((capture("\\.(?<f>[0-9]+)Z$") | "0." + .f | tonumber) // 0);
  select(.schema == "gentle-shell.agent-status/v1") |
  select((now - (.updatedAt | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)) <= 30) |
  {agent: .agent, session: .session, state: .state, title: (.task.title // ""), pid: .pid, cwd: .cwd}' \
  "$STATUS_DIR"/*.json 2>/dev/null
exit 0
