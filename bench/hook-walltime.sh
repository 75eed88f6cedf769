#!/usr/bin/env bash
# hook-walltime.sh: the wall time of `statuspub set` and the hook adapters
# (claude-hook, codex-hook, gemini-hook) as an agent running them as hooks
# sees it (start, write, exit), against a floor that starts statuspub and
# prints its usage. Given OLD, another statuspub binary (an earlier
# build), it times OLD's set and claude-hook too. The commands take turns:
# each round runs every one once, so that a change in the machine's load
# falls on all of them alike.
# Prints the median and the 90th percentile of N runs each, in ms.
#
#   bash bench/hook-walltime.sh [N [OLD]]      (default N=300)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
old=${2:-}
work=$(mktemp -d)
sleep 600 & agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/statuspub" ./cmd/statuspub
pub=$work/statuspub
dir=$work/home/agent-status
input=internal/cli/statuspub/testdata/claude/pre-tool-use-bash.json
codex_input=internal/agenthook/testdata/codex/pre-tool-use.json
gemini_input=internal/agenthook/testdata/gemini/before-tool.json

# The commands, as NAME and a shell command line; $pub, $dir, $agent and
# the inputs are the script's. The adapters run through sh -c as agents
# run them, gemini-hook also through bash -c as Gemini CLI does. Codex
# runs hooks through a login shell ($SHELL -lc): that shell's start-up
# (profile files) comes on top and is not statuspub's; it is left out
# here.
names=() cmds=()
add() { names+=("$1"); cmds+=("$2"); }
add "floor (statuspub --help)" '"$p" --help'
add "set" '"$p" set --dir "$dir" --session bench --pid "$agent" --state working --title Benchmark'
add "claude-hook PreToolUse" 'sh -c '\''"$0" claude-hook --dir "$1" --pid "$2" <"$3"'\'' "$p" "$dir" "$agent" "$input"'
add "floor for it (sh -c)" 'sh -c '\''"$0" --help <"$1"'\'' "$p" "$input"'
add "codex-hook PreToolUse" 'sh -c '\''"$0" codex-hook --dir "$1" --pid "$2" <"$3"'\'' "$p" "$dir" "$agent" "$codex_input"'
add "gemini-hook BeforeTool" 'sh -c '\''"$0" gemini-hook --dir "$1" --pid "$2" <"$3"'\'' "$p" "$dir" "$agent" "$gemini_input"'
add "gemini-hook (bash -c)" 'bash -c '\''"$0" gemini-hook --dir "$1" --pid "$2" <"$3"'\'' "$p" "$dir" "$agent" "$gemini_input"'
add "floor for it (bash -c)" 'bash -c '\''"$0" --help <"$1"'\'' "$p" "$gemini_input"'
nnew=${#names[@]}
if [ -n "$old" ]; then
	add "OLD set" '"$p" set --dir "$dir" --session bench --pid "$agent" --state working --title Benchmark'
	add "OLD claude-hook PreToolUse" 'sh -c '\''"$0" claude-hook --dir "$1" --pid "$2" <"$3"'\'' "$p" "$dir" "$agent" "$input"'
fi

"$pub" set --dir "$dir" --session bench --pid "$agent" # starts the owner
for ((i = 0; i < n; i++)); do
	for ((c = 0; c < ${#cmds[@]}; c++)); do
		p=$pub
		if ((c >= nnew)); then p=$old; fi
		t0=$EPOCHREALTIME
		eval "${cmds[c]}" >/dev/null
		t1=$EPOCHREALTIME
		echo "$t0 $t1" >>"$work/times.$c"
	done
done
for ((c = 0; c < ${#cmds[@]}; c++)); do
	awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' "$work/times.$c" | sort -n | awk -v name="${names[c]}" '{ d[NR] = $1 } END {
		printf "%-28s median %6.2f ms   p90 %6.2f ms   (%d runs)\n", name, d[int((NR + 1) / 2)], d[int(NR * 0.9)], NR }'
done
