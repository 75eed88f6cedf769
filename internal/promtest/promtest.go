// Package promtest gives tests Prometheus's own tools: promtool, to check
// the metrics statusls writes and to run alert-rule tests, and the servers
// the end-to-end test starts.
//
// A tool that is missing skips the test on a developer's machine. The CI
// step that installs them (.ci/prometheus.sh) sets AGENTSTATUS_PROMETHEUS=1
// with AGENTSTATUS_REQUIRE_TOOLS=1, and there a missing tool fails the
// test. (The module-wide "go test ./..." step runs before that step has
// installed them, so AGENTSTATUS_REQUIRE_TOOLS=1 alone does not require
// them.)
package promtest

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Required reports whether a missing tool fails the test rather than
// skipping it.
func Required() bool {
	return os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" && os.Getenv("AGENTSTATUS_PROMETHEUS") == "1"
}

// Tool returns the path of the program name, looking in $PATH and then in
// /usr/sbin and /usr/bin (Debian's packages), or skips or fails t.
func Tool(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/bin", "/usr/sbin"} {
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if Required() {
		t.Fatalf("%s is required (Debian: apt-get install prometheus prometheus-node-exporter)", name)
	}
	t.Skipf("%s not installed (Debian: prometheus, prometheus-node-exporter); skipping", name)
	return ""
}

// CheckMetrics runs "promtool check metrics" over data and fails t with
// what promtool says when it does not accept it: a parse error or a lint
// problem.
func CheckMetrics(t testing.TB, what string, data []byte) {
	t.Helper()
	if err := checkMetrics(Tool(t, "promtool"), data); err != nil {
		t.Errorf("promtool check metrics rejects %s: %v\n%s", what, err, data)
	}
}

// CheckMetricsErr is CheckMetrics for a caller that handles the error:
// nil when promtool accepts data.
func CheckMetricsErr(t testing.TB, data []byte) error {
	t.Helper()
	return checkMetrics(Tool(t, "promtool"), data)
}

func checkMetrics(promtool string, data []byte) error {
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(data)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &checkError{err: err, out: strings.TrimSpace(out.String())}
	}
	return nil
}

type checkError struct {
	err error
	out string
}

func (e *checkError) Error() string { return e.err.Error() + ": " + e.out }
