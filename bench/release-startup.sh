#!/usr/bin/env bash
# release-startup.sh: the start-up of the released binaries (GoReleaser's
# dist/, built with -trimpath -s -w, CGO_ENABLED=0) side by side with
# those `go install` builds from the same tree (its default flags), on
# the two calls that run most often: `statusls --count` (a status bar)
# and `statuspub claude-hook` (every agent event). Given NPM, the prefix
# of an `npm install -g --prefix NPM` of the release's packages, it times
# NPM/bin/statusls and NPM/bin/statuspub too: npm's launcher (node) in
# front of the same binaries. The commands take turns, round by round, so
# that a change in the machine's load falls on all alike. Prints the
# median and p90 of N runs each in ms, the ratios to go install's, and
# the binaries' sizes.
#
#   bash bench/release-startup.sh [N [DIST [NPM]]]   (default N=200, DIST=dist)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
dist=${2:-dist}
npm=${3:-}
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) echo "no release build for $(uname -m)" >&2 && exit 1 ;;
esac
rel_ls=$(ls "$dist"/statusls_linux_"$arch"*/statusls)
rel_pub=$(ls "$dist"/statuspub_linux_"$arch"*/statuspub)
work=$(mktemp -d)
sleep 600 & agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null || true; rm -rf "$work"' EXIT
GOBIN=$work/gobin go install ./cmd/statusls ./cmd/statuspub

dir=$work/home/agent-status
input=internal/cli/statuspub/testdata/claude/pre-tool-use-bash.json
# Four sessions to count.
for s in a b c d; do
	"$work/gobin/statuspub" set --dir "$dir" --session "$s" --pid "$agent" --state working --title "bench $s"
done

names=() ls_bins=() pub_bins=()
add() { names+=("$1"); ls_bins+=("$2"); pub_bins+=("$3"); }
add "go install" "$work/gobin/statusls" "$work/gobin/statuspub"
add "release" "$rel_ls" "$rel_pub"
if [ -n "$npm" ]; then
	add "npm launcher" "$npm/bin/statusls" "$npm/bin/statuspub"
fi

for ((i = 0; i < n; i++)); do
	for ((c = 0; c < ${#names[@]}; c++)); do
		t0=$EPOCHREALTIME
		"${ls_bins[c]}" --count --dir "$dir" >/dev/null
		t1=$EPOCHREALTIME
		sh -c '"$0" claude-hook --dir "$1" --pid "$2" <"$3"' "${pub_bins[c]}" "$dir" "$agent" "$input"
		t2=$EPOCHREALTIME
		echo "$t0 $t1" >>"$work/count.$c"
		echo "$t1 $t2" >>"$work/hook.$c"
	done
done

median() { awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' "$1" | sort -n | awk '{ d[NR] = $1 } END { print d[int((NR + 1) / 2)], d[int(NR * 0.9)] }'; }
for what in count hook; do
	case $what in
	count) echo "statusls --count (4 sessions), $n runs each:" ;;
	hook) echo "statuspub claude-hook PreToolUse (through sh -c), $n runs each:" ;;
	esac
	read -r base _ < <(median "$work/$what.0")
	for ((c = 0; c < ${#names[@]}; c++)); do
		read -r med p90 < <(median "$work/$what.$c")
		awk -v name="${names[c]}" -v med="$med" -v p90="$p90" -v base="$base" 'BEGIN {
			printf "  %-14s median %7.3f ms   p90 %7.3f ms   ratio to go install %.2f\n", name, med, p90, med / base }'
	done
done
echo "sizes (bytes):"
for f in "$work/gobin/statusls" "$rel_ls" "$work/gobin/statuspub" "$rel_pub"; do
	printf "  %10d  %s\n" "$(wc -c <"$f")" "${f#"$work"/}"
done
