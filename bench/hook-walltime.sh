#!/usr/bin/env bash
# hook-walltime.sh: the wall time of `statuspub set` and the hook adapters
# (claude-hook, codex-hook, gemini-hook) as an agent running them as hooks
# sees it (start, write, exit), against a floor that starts statuspub and
# prints its usage.
# Prints the median and the 90th percentile of N runs each, in ms.
#
#   bash bench/hook-walltime.sh [N]      (default N=300)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
work=$(mktemp -d)
sleep 600 & agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/statuspub" ./cmd/statuspub
pub=$work/statuspub
dir=$work/home/agent-status
input=internal/cli/statuspub/testdata/claude/pre-tool-use-bash.json

# time_runs NAME CMD...: runs CMD n times, prints the median and p90.
time_runs() {
	local name=$1; shift
	local i t0 t1
	: >"$work/times"
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		"$@" >/dev/null
		t1=$EPOCHREALTIME
		echo "$t0 $t1" >>"$work/times"
	done
	awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' "$work/times" | sort -n | awk -v name="$name" '{ d[NR] = $1 } END {
		printf "%-28s median %6.2f ms   p90 %6.2f ms   (%d runs)\n", name, d[int((NR + 1) / 2)], d[int(NR * 0.9)], NR }'
}

"$pub" set --dir "$dir" --session bench --pid "$agent" # starts the owner
time_runs "floor (statuspub --help)" "$pub" --help
time_runs "set" "$pub" set --dir "$dir" --session bench --pid "$agent" --state working --title Benchmark
time_runs "claude-hook PreToolUse" sh -c '"$0" claude-hook --dir "$1" --pid "$2" <"$3"' "$pub" "$dir" "$agent" "$input"
time_runs "floor for it (sh -c)" sh -c '"$0" --help <"$1"' "$pub" "$input"

# The adapters of the other agents, through sh -c like claude-hook, then
# gemini-hook as Gemini CLI runs it (bash -c). Codex runs hooks through a
# login shell ($SHELL -lc): that shell's start-up (profile files) comes on
# top and is not statuspub's; it is left out here.
codex_input=internal/agenthook/testdata/codex/pre-tool-use.json
gemini_input=internal/agenthook/testdata/gemini/before-tool.json
time_runs "codex-hook PreToolUse" sh -c '"$0" codex-hook --dir "$1" --pid "$2" <"$3"' "$pub" "$dir" "$agent" "$codex_input"
time_runs "gemini-hook BeforeTool" sh -c '"$0" gemini-hook --dir "$1" --pid "$2" <"$3"' "$pub" "$dir" "$agent" "$gemini_input"
time_runs "gemini-hook (bash -c)" bash -c '"$0" gemini-hook --dir "$1" --pid "$2" <"$3"' "$pub" "$dir" "$agent" "$gemini_input"
time_runs "floor for it (bash -c)" bash -c '"$0" --help <"$1"' "$pub" "$gemini_input"
