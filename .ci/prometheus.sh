#!/bin/sh
# Prometheus: installs Debian's prometheus (which ships promtool) and
# prometheus-node-exporter when missing, without starting their services
# (the tests start their own, on 127.0.0.1 only), then runs the tests that
# need them with the tools required: promtool check metrics over every
# fixture and the fuzz corpus, the alert rules' promtool tests, and the
# end-to-end test (a real node_exporter and a real Prometheus follow
# statusls watch --metrics-textfile).
set -eu
cd "$(dirname "$0")/.."

have() {
	command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ] || [ -x "/usr/sbin/$1" ]
}

need=""
have promtool && have prometheus || need="$need prometheus"
have prometheus-node-exporter || have node_exporter || need="$need prometheus-node-exporter"
if [ -n "$need" ]; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	# policy-rc.d answering 101 keeps the packages' maintainer scripts from
	# starting the system services (Prometheus on 0.0.0.0:9090,
	# node_exporter on :9100); one that is already there is left alone.
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
		$SUDO chmod 755 "$policy"
	fi
	$SUDO apt-get update
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $need
	[ -z "$policy" ] || $SUDO rm -f "$policy"
fi
echo "promtool: $(promtool --version 2>&1 | head -n 1)"
echo "prometheus: $(prometheus --version 2>&1 | head -n 1)"
echo "node_exporter: $( (prometheus-node-exporter --version || node_exporter --version) 2>&1 | head -n 1)"

# Missing tools fail these tests rather than skip them.
export AGENTSTATUS_REQUIRE_TOOLS=1 AGENTSTATUS_PROMETHEUS=1
log=$(mktemp)
run() {
	if ! go test -count=1 -v "$@" >"$log" 2>&1; then
		cat "$log"
		rm -f "$log"
		exit 1
	fi
	grep -E '^(--- |ok |.*E2E )' "$log" || true
}
run ./internal/promtext/...
run -run '^(TestMetrics|TestWatchMetrics)' ./internal/cli/statusls
run -run '^TestPrometheus' ./examples
rm -f "$log"
