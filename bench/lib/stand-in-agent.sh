# Sourced by the hook benchmarks (bench/hook-*.sh): builds statuspub into a
# temporary directory and starts a stand-in agent (a sleep) whose pid the
# owners follow. On exit the agent is killed, the owners (which see it gone
# within a heartbeat) are given 10 s to exit, and the directory is removed.
# Sets and exports: work, pub, dir (the status directory), agent.
export STATUSPUB_HEARTBEAT=${HB:-1s}
work=$(mktemp -d)
sleep 600 & agent=$!
cleanup() {
	kill $agent 2>/dev/null || true
	wait $agent 2>/dev/null || true
	for _ in $(seq 100); do
		ls "$work"/home/agent-status/.*.owner >/dev/null 2>&1 || break
		sleep 0.1
	done
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/statuspub" ./cmd/statuspub
pub=$work/statuspub
dir=$work/home/agent-status
export pub dir agent work
