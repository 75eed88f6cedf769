//go:build unix

package examples_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/promtest"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
)

// TestPrometheusRules runs the alert rules' own unit tests.
func TestPrometheusRules(t *testing.T) {
	t.Parallel()
	promtool := promtest.Tool(t, "promtool")
	for _, args := range [][]string{
		{"check", "rules", "agentstatus.rules.yml"},
		{"test", "rules", "agentstatus.rules.test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// followDeadline is how soon Prometheus must show a change of state.
const followDeadline = 5 * time.Second

// TestPrometheusEndToEnd: sessions published with statuspub, followed by
// statusls watch --metrics-textfile into the textfile directory of the
// real node_exporter, scraped every second by a real Prometheus: the
// number of blocked sessions that Prometheus's query API answers follows
// each change within 5 s; the blocked alert fires in Prometheus, and
// promtool's rule test fires it on the series Prometheus recorded.
func TestPrometheusEndToEnd(t *testing.T) {
	testmain.SkipShort(t, "starts Prometheus and node_exporter and waits for their scrapes")
	t.Parallel()
	promtool := promtest.Tool(t, "promtool")
	prometheus := promtest.Tool(t, "prometheus")
	nodeExporter := nodeExporterPath(t)
	statusls := realStatusls(t)
	statuspub := filepath.Join(binDir, "statuspub")
	begin := time.Now()

	base := t.TempDir()
	os.Chmod(base, 0o700)
	statusDir := filepath.Join(base, "agent-status")
	textDir := filepath.Join(base, "textfile")
	promDir := filepath.Join(base, "prometheus")
	for _, d := range []string{statusDir, textDir, promDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(textDir, 0o755)
	logs := filepath.Join(base, "logs")
	os.Mkdir(logs, 0o700)

	nodePort, promPort := testbin.FreePort(t), testbin.FreePort(t)
	nodeAddr := "127.0.0.1:" + strconv.Itoa(nodePort)
	promAddr := "127.0.0.1:" + strconv.Itoa(promPort)
	rules, err := filepath.Abs("prometheus/agentstatus.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - %q
scrape_configs:
  - job_name: node
    static_configs:
      - targets: [%q]
`, rules, nodeAddr)
	configFile := filepath.Join(promDir, "prometheus.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}

	daemon(t, logs, "node_exporter", nodeExporter,
		"--collector.disable-defaults", "--collector.textfile",
		"--collector.textfile.directory="+textDir,
		"--web.listen-address="+nodeAddr)
	daemon(t, logs, "prometheus", prometheus,
		"--config.file="+configFile,
		"--storage.tsdb.path="+filepath.Join(promDir, "data"),
		"--web.listen-address="+promAddr)
	daemon(t, logs, "statusls", statusls, "watch", "--metrics-textfile", filepath.Join(textDir, "agentstatus.prom"), "--dir", statusDir)

	api := &promAPI{t: t, base: "http://" + promAddr}
	blocked := `sum(agentstatus_sessions{state="blocked"})`
	// Start-up: Prometheus ready, and the first scrape in.
	api.waitValue(blocked, "0", 60*time.Second, logs)
	t.Logf("E2E prometheus, node_exporter and the first scrape ready after %v", time.Since(begin).Round(time.Millisecond))

	s1 := startServe(t, statuspub, statusDir, "e2e-1", "claude-code")
	s2 := startServe(t, statuspub, statusDir, "e2e-2", "codex")
	api.waitValue(`sum(agentstatus_sessions{state="working"})`, "2", 30*time.Second, logs)

	var worst time.Duration
	step := func(what string, change func(), want string) {
		t.Helper()
		change() // returns once the change is on disk
		took := api.waitValue(blocked, want, followDeadline, logs)
		worst = max(worst, took)
		t.Logf("E2E %s: Prometheus shows %s blocked after %v", what, want, took.Round(time.Millisecond))
	}
	step("e2e-1 blocked", func() { s1.send(`{"waitingFor":{"kind":"permission","tool":"Bash","detail":"make deploy"}}`) }, "1")
	step("e2e-2 blocked", func() { s2.send(`{"waitingFor":{"kind":"question"}}`) }, "2")
	step("e2e-1 working", func() { s1.send(`{"state":"working"}`) }, "1")
	step("e2e-2 gone", func() { s2.close() }, "0")

	// A session that has waited 11 minutes (its own waitingFor.since),
	// published by the library: the alert fires in Prometheus.
	p, err := statusfile.NewPublisher("e2e-long", statusfile.Options{Dir: statusDir, Agent: "pi"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	p.SetWaiting(statusfile.Waiting{Kind: "question", Since: time.Now().Add(-11 * time.Minute)})
	step("e2e-long blocked for 11 minutes", func() {}, "1")
	api.waitFiring("AgentSessionBlocked", 10*time.Second, logs)

	// Every query of the Grafana dashboard runs on what Prometheus has.
	for name, expr := range dashboardExprs(t) {
		if _, err := api.get("/api/v1/query", url.Values{"query": {expr}}); err != nil {
			t.Errorf("dashboard panel %s: %v", name, err)
		}
	}

	// promtool's rule test over the series Prometheus recorded.
	series := api.series(`agentstatus_oldest_seconds{state="blocked"}`, begin, time.Now())
	ruleTest(t, promtool, rules, series)
	t.Logf("E2E worst follow %v (deadline %v); whole test %v", worst.Round(time.Millisecond), followDeadline, time.Since(begin).Round(time.Millisecond))
}

// nodeExporterPath finds node_exporter: Debian's name, else upstream's.
func nodeExporterPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"prometheus-node-exporter", "node_exporter"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return promtest.Tool(t, "prometheus-node-exporter")
}

// daemon starts a program in a process group of its own, its output in
// logs/name.log, and stops the group when the test ends.
func daemon(t *testing.T, logs, name, path string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(logs, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// serve is a statuspub serve with its input and answers.
type serve struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
	cmd *exec.Cmd
}

func startServe(t *testing.T, statuspub, dir, session, agent string) *serve {
	t.Helper()
	cmd := exec.Command(statuspub, "serve", "--dir", dir, "--session", session, "--agent", agent, "--state", "working", "--pid", strconv.Itoa(os.Getpid()))
	cmd.Stderr = os.Stderr
	in, out := testbin.StartPiped(t, cmd)
	s := &serve{t: t, in: in, out: bufio.NewScanner(out), cmd: cmd}
	t.Cleanup(s.close)
	return s
}

// send writes one line and waits for its answer: the change is on disk.
func (s *serve) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
	if !s.out.Scan() || !strings.Contains(s.out.Text(), `"ok":true`) {
		s.t.Fatalf("statuspub serve answered %q to %s", s.out.Text(), line)
	}
}

// close ends the input: statuspub removes its file and exits.
func (s *serve) close() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.in.Close()
	s.cmd.Wait()
}

// promAPI asks Prometheus's HTTP API.
type promAPI struct {
	t    *testing.T
	base string
}

// get returns the "data" of an API answer, or an error.
func (a *promAPI) get(path string, q url.Values) (json.RawMessage, error) {
	resp, err := http.Get(a.base + path + "?" + q.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", path, r.Error)
	}
	return r.Data, nil
}

// value returns the instant query's single value, "" when it has none.
func (a *promAPI) value(query string) (string, error) {
	data, err := a.get("/api/v1/query", url.Values{"query": {query}})
	if err != nil {
		return "", err
	}
	var d struct {
		Result []struct {
			Value [2]any `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return "", err
	}
	if len(d.Result) != 1 {
		return "", nil
	}
	v, _ := d.Result[0].Value[1].(string)
	return v, nil
}

// waitValue polls the query until it answers want, failing after within;
// it returns how long that took.
func (a *promAPI) waitValue(query, want string, within time.Duration, logs string) time.Duration {
	a.t.Helper()
	start := time.Now()
	var got string
	var err error
	for {
		got, err = a.value(query)
		if err == nil && got == want {
			return time.Since(start)
		}
		if time.Since(start) > within {
			a.t.Fatalf("%s: %q (error %v), want %s within %v\n%s", query, got, err, want, within, dumpLogs(logs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFiring polls the alerts until name fires.
func (a *promAPI) waitFiring(name string, within time.Duration, logs string) {
	a.t.Helper()
	start := time.Now()
	var last string
	for time.Since(start) <= within {
		data, err := a.get("/api/v1/alerts", nil)
		if err == nil {
			last = string(data)
			var d struct {
				Alerts []struct {
					Labels map[string]string `json:"labels"`
					State  string            `json:"state"`
				} `json:"alerts"`
			}
			json.Unmarshal(data, &d)
			for _, al := range d.Alerts {
				if al.Labels["alertname"] == name && al.State == "firing" {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	a.t.Fatalf("%s did not fire within %v: %s\n%s", name, within, last, dumpLogs(logs))
}

// recorded is one series as Prometheus recorded it.
type recorded struct {
	labels map[string]string
	values []float64 // one a second
}

// series returns the series of query from start to end, a sample a
// second.
func (a *promAPI) series(query string, start, end time.Time) []recorded {
	a.t.Helper()
	data, err := a.get("/api/v1/query_range", url.Values{
		"query": {query}, "start": {strconv.FormatInt(start.Unix(), 10)},
		"end": {strconv.FormatInt(end.Unix()+1, 10)}, "step": {"1"},
	})
	if err != nil {
		a.t.Fatal(err)
	}
	var d struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		a.t.Fatal(err)
	}
	var out []recorded
	for _, r := range d.Result {
		s := recorded{labels: r.Metric}
		for _, v := range r.Values {
			f, _ := strconv.ParseFloat(v[1].(string), 64)
			s.values = append(s.values, f)
		}
		out = append(out, s)
	}
	if len(out) != 1 || len(out[0].values) == 0 {
		a.t.Fatalf("%s: recorded %+v, want one series", query, out)
	}
	return out
}

// ruleTest runs promtool test rules with the rules file over the recorded
// series (whole seconds, a sample a second): AgentSessionBlocked must
// fire at the last sample, with the labels and words the rules give it.
func ruleTest(t *testing.T, promtool, rules string, series []recorded) {
	t.Helper()
	s := series[0]
	var labels []string
	for k, v := range s.labels {
		labels = append(labels, fmt.Sprintf("%s=%q", k, v))
	}
	var values []string
	for _, v := range s.values {
		values = append(values, strconv.FormatInt(int64(v), 10))
	}
	last := int64(s.values[len(s.values)-1])
	if last <= 600 {
		t.Fatalf("the recorded wait is %d s, not over 10 minutes: %v", last, values)
	}
	test := fmt.Sprintf(`rule_files:
  - %q
evaluation_interval: 1s
tests:
  - interval: 1s
    input_series:
      - series: '{%s}'
        values: '%s'
    alert_rule_test:
      - eval_time: %ds
        alertname: AgentSessionBlocked
        exp_alerts:
          - exp_labels:
              severity: warning
              instance: %q
            exp_annotations:
              summary: "An agent on %s has waited for you for %dm %ds"
              description: "'statusls --state blocked' on that host shows which session and why."
`, rules, strings.Join(labels, ","), strings.Join(values, " "), len(values)-1,
		s.labels["instance"], s.labels["instance"], last/60, last%60)
	file := filepath.Join(t.TempDir(), "recorded.test.yml")
	if err := os.WriteFile(file, []byte(test), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "test", "rules", file).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules on the recorded series: %v\n%s\n%s", err, out, test)
	}
}

// dumpLogs returns the daemons' logs, for a failure.
func dumpLogs(dir string) string {
	var b strings.Builder
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		data, _ := os.ReadFile(filepath.Join(dir, n.Name()))
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		fmt.Fprintf(&b, "--- %s (end)\n%s\n", n.Name(), data)
	}
	return b.String()
}

// dashboardExprs returns the PromQL of every panel of the Grafana
// dashboard, with its $instance variable set to all hosts.
func dashboardExprs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("prometheus/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr  string `json:"expr"`
				RefID string `json:"refId"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("the dashboard has no uid or no panels")
	}
	exprs := map[string]string{}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs[p.Title+" "+tg.RefID] = strings.ReplaceAll(tg.Expr, "$instance", ".*")
		}
	}
	return exprs
}

// TestPrometheusDashboard: every query of the Grafana dashboard is PromQL
// that promtool accepts (as a recording rule).
func TestPrometheusDashboard(t *testing.T) {
	t.Parallel()
	promtool := promtest.Tool(t, "promtool")
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	i := 0
	for name, expr := range dashboardExprs(t) {
		i++
		q, _ := json.Marshal(expr) // a JSON string is a YAML string
		fmt.Fprintf(&b, "      # %s\n      - record: dashboard:query_%d\n        expr: %s\n", name, i, q)
	}
	file := filepath.Join(t.TempDir(), "dashboard.rules.yml")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s\n%s", err, out, b.String())
	}
}

// TestPrometheusSystemdUnit: the unit's command line, with statusls where
// the test built it, keeps the textfile current; systemd-analyze verify
// accepts the unit where systemd is installed.
func TestPrometheusSystemdUnit(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("prometheus/agentstatus-metrics.service")
	if err != nil {
		t.Fatal(err)
	}
	var execStart, textfile string
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execStart = v
		}
		if v, ok := strings.CutPrefix(line, "Environment=TEXTFILE="); ok {
			textfile = v
		}
	}
	if !strings.HasPrefix(execStart, "%h/go/bin/statusls ") || textfile == "" {
		t.Fatalf("ExecStart %q, TEXTFILE %q", execStart, textfile)
	}
	base := t.TempDir()
	os.Chmod(base, 0o700)
	statusDir := filepath.Join(base, "agent-status")
	os.Mkdir(statusDir, 0o700)
	textDir := filepath.Join(base, "textfile")
	os.Mkdir(textDir, 0o755)
	file := filepath.Join(textDir, filepath.Base(textfile))
	args := strings.Fields(strings.ReplaceAll(execStart, "${TEXTFILE}", file))[1:]
	cmd := exec.Command(realStatusls(t), args...)
	cmd.Env = append(os.Environ(), "STATUS_DIR="+statusDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if data, err := os.ReadFile(file); err == nil && strings.Contains(string(data), "agentstatus_sessions{") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v: no textfile within 15 s; stderr: %s", args, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze not installed: the unit's syntax is not verified")
		return
	}
	unit := filepath.Join(t.TempDir(), "agentstatus-metrics.service")
	os.WriteFile(unit, []byte(strings.ReplaceAll(string(data), "%h/go/bin/statusls", realStatusls(t))), 0o644)
	if out, err := exec.Command(analyze, "verify", unit).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
