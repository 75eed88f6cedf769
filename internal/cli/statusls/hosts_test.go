//go:build unix

package statusls

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/internal/sshtest"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/statusfile"
)

// hostsFleet is a real sshd with the hosts alpha and beta (each with its
// own status directory), nostatusls and down, and the environment that
// makes statusls reach them.
type hostsFleet struct {
	alpha, beta string
	env         map[string]string
	srv         *sshtest.Server
}

func newHostsFleet(t *testing.T) *hostsFleet {
	t.Helper()
	f := &hostsFleet{alpha: sshtest.StatusDir(t, "a"), beta: sshtest.StatusDir(t, "b")}
	f.srv = sshtest.Start(t,
		sshtest.Host{Name: "alpha", StatusDir: f.alpha},
		sshtest.Host{Name: "beta", StatusDir: f.beta},
		sshtest.Host{Name: "nostatusls", NoStatusls: true},
		sshtest.Host{Name: "down", Down: true},
	)
	home := t.TempDir()
	f.env = map[string]string{
		"HOME":            home,
		"XDG_RUNTIME_DIR": f.srv.Dir, // short: the sockets of shared connections go below it
		"STATUSLS_SSH":    filepath.Join(f.srv.Wrapper(t), "ssh"),
		"STATUS_DIR":      sshtest.StatusDir(t, "local"),
	}
	return f
}

func TestHostsList(t *testing.T) {
	t.Parallel()
	f := newHostsFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "on alpha")
	sshtest.Publish(t, f.beta, "b1", "blocked", "\x1b[31mon beta\x1b[0m")
	publish(t, f.env["STATUS_DIR"], statusfile.Status{Schema: statusfile.Schema, Agent: "test", Session: "l1", State: "idle", UpdatedAt: now})

	r := run(t, runOpts{env: f.env}, "--json", "--local", "--host", "alpha", "--host", "beta,nostatusls,down")
	if r.code != base.ExitPartial {
		t.Errorf("exit %d, want %d (partial); stderr:\n%s", r.code, base.ExitPartial, r.stderr)
	}
	var objs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &objs); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, o := range objs {
		host, _ := o["host"].(string)
		if o["host"] == nil {
			host = "(null)"
		}
		if o["verdict"] == "host-error" {
			got[host] = "error:" + o["reason"].(string)
			if o["hint"] == nil || o["error"] == nil {
				t.Errorf("%s: no error or hint: %v", host, o)
			}
			continue
		}
		title, _ := o["title"].(string) // null: no title
		got[host] += o["session"].(string) + "/" + title
	}
	want := map[string]string{"(null)": "l1/", "alpha": "a1/on alpha", "beta": "b1/on beta", "nostatusls": "error:statusls-missing", "down": "error:ssh"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("host %s: got %q, want %q", k, got[k], v)
		}
	}
	// One line per failing host on stderr.
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || !strings.Contains(r.stderr, "statusls: host nostatusls: ") || !strings.Contains(r.stderr, "statusls: host down: ") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	noControls(t, "json", r.stdout)

	r = run(t, runOpts{env: f.env}, "--tsv", "--host", "alpha,beta")
	if r.code != 0 || r.stdout != "alpha\ttest\ta1\tworking\ton alpha\nbeta\ttest\tb1\tblocked\ton beta\n" {
		t.Errorf("tsv: exit %d\n%q\n%s", r.code, r.stdout, r.stderr)
	}
	// --json FIELDS takes host too, first in every object.
	r = run(t, runOpts{env: f.env}, "--json", "state,host,session", "--host", "alpha,beta")
	if want := "[\n{\"host\":\"alpha\",\"session\":\"a1\",\"state\":\"working\"},\n{\"host\":\"beta\",\"session\":\"b1\",\"state\":\"blocked\"}\n]\n"; r.code != 0 || r.stdout != want {
		t.Errorf("--json FIELDS: exit %d\n%s\nwant\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	if r := run(t, runOpts{env: f.env}, "--json", "host,session"); r.code != base.ExitUsage || !strings.Contains(r.stderr, `unknown field "host"`) {
		t.Errorf("--json host without --host: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, runOpts{env: f.env}, "--jq", ".", "--host", "alpha"); r.code != base.ExitUsage || !strings.Contains(r.stderr, "--jq cannot be combined with --host") {
		t.Errorf("--jq --host: exit %d %s", r.code, r.stderr)
	}
	r = run(t, runOpts{env: f.env, terminal: true, width: 60}, "--host", "alpha,beta", "--color", "never")
	// HOST comes right after SESSION.
	if !strings.HasPrefix(r.stdout, "STATE    SESSION  HOST   AGE") || !strings.Contains(r.stdout, "\nblocked  b1       beta   ") {
		t.Errorf("table:\n%s", r.stdout)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if displayWidth(l) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	r = run(t, runOpts{env: f.env}, "--summary", "--local", "--host", "alpha,beta")
	if r.code != 0 || r.stdout != "1 blocked · 1 working · 1 idle\n" {
		t.Errorf("summary: %d %q %s", r.code, r.stdout, r.stderr)
	}
	// This machine's directory refused: the hosts are still listed.
	os.Chmod(f.env["STATUS_DIR"], 0o777)
	r = run(t, runOpts{env: f.env}, "--json", "--local", "--host", "alpha")
	if r.code != base.ExitPartial || !strings.Contains(r.stdout, `{"host":null,"file":null,"session":null,"state":null,"fresh":false,"verdict":"host-error","reason":"refused"`) || !strings.Contains(r.stdout, `"session":"a1"`) {
		t.Errorf("local refused: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	os.Chmod(f.env["STATUS_DIR"], 0o700)
	r = run(t, runOpts{env: f.env}, "--summary", "--host", "beta,down")
	if r.code != base.ExitPartial || r.stdout != "1 blocked · 1 host offline\n" {
		t.Errorf("summary with a host down: %d %q", r.code, r.stdout)
	}
	// Why a remote session waits: in the table and in --json, as for
	// this machine's. (The host's statusls runs on the real clock.)
	since := time.Now().UTC().Truncate(time.Millisecond)
	publish(t, f.beta, statusfile.Status{Schema: statusfile.Schema, Agent: "test", Session: "b1", State: statusfile.Blocked, Cwd: "/src", UpdatedAt: since,
		WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: since}})
	r = run(t, runOpts{env: f.env, terminal: true, width: 100}, "--host", "beta", "--color", "never")
	if !strings.Contains(r.stdout, "WHY\n") || !strings.Contains(r.stdout, "  Bash: rm -rf build\n") {
		t.Errorf("table with a reason:\n%s%s", r.stdout, r.stderr)
	}
	r = run(t, runOpts{env: f.env}, "--json", "host,waitingFor,ended", "--host", "beta")
	if want := "[\n{\"host\":\"beta\",\"waitingFor\":{\"kind\":\"permission\",\"tool\":\"Bash\",\"detail\":\"rm -rf build\",\"since\":\"" + string(timefmt.Append(nil, since)) + "\"},\"ended\":null}\n]\n"; r.stdout != want {
		t.Errorf("--json with a reason:\n%s\nwant\n%s%s", r.stdout, want, r.stderr)
	}
	// Every host down: an error.
	r = run(t, runOpts{env: f.env}, "--count", "--host", "down")
	if r.code != base.ExitError || r.stdout != "0\n" {
		t.Errorf("all down: exit %d, %q", r.code, r.stdout)
	}
}

func TestHostsFlags(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--host", "-oProxyCommand=touch /tmp/pwned"}, "starts with '-'"},
		{[]string{"--host", "a\x1bb"}, "never do"},
		{[]string{"--host", ""}, "no host"},
		{[]string{"--all-hosts"}, "no hosts configured"},
		{[]string{"--host", "a", "--jq", "."}, "--jq cannot be combined with --host"},
		{[]string{"--host", "a", "--host-timeout", "0s"}, "--host-timeout"},
		{[]string{"wait", "--host", "a,b", "--session", "x", "--gone"}, "exactly one host"},
	} {
		r := run(t, runOpts{env: env}, tc.args...)
		if r.code != base.ExitUsage || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q", tc.args, r.code, r.stderr)
		}
	}
}

func TestHostsFromEnv(t *testing.T) {
	t.Parallel()
	f := newHostsFleet(t)
	sshtest.Publish(t, f.beta, "b1", "idle", "x")
	f.env["STATUSLS_HOSTS"] = "beta"
	r := run(t, runOpts{env: f.env}, "--tsv", "--all-hosts")
	if r.code != 0 || r.stdout != "beta\ttest\tb1\tidle\tx\n" {
		t.Errorf("exit %d %q %s", r.code, r.stdout, r.stderr)
	}
}

func TestHostsWatch(t *testing.T) {
	t.Parallel()
	f := newHostsFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "x")
	clock := clocktest.New(now)
	out := filepath.Join(t.TempDir(), "exec.log")
	w := start(t, clock, cmdOpts{env: f.env}, "watch", "--json", "--host", "alpha,beta,down",
		"--on", "blocked", "--exec", `echo "$STATUS_HOST $STATUS_SESSION" >> `+out)
	w.waitLine(`"event":"synced"`)
	w.waitLine(`{"host":"alpha","event":"snapshot"`, `"session":"a1"`)
	w.waitLine(`{"host":"down","event":"host-offline"`)
	sshtest.Publish(t, f.beta, "b1", "blocked", "needs you")
	w.waitLine(`{"host":"beta","event":"added"`, `"session":"b1"`)
	poll(t, "the --exec command with STATUS_HOST", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "beta b1\n"
	}, nil)
	statusfile.RemoveFile(f.beta, "b1")
	w.waitLine(`{"host":"beta","event":"removed"`, `"reason":"deleted"`)
	w.signal(os.Interrupt)
	if code := w.exit(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(w.stderr.String(), "statusls: host down offline: ") {
		t.Errorf("stderr:\n%s", w.stderr.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(w.stdout.String()), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Errorf("%v: %s", err, l)
		}
		if _, ok := o["host"]; !ok {
			t.Errorf("no host: %s", l)
		}
	}
}

func TestHostsWait(t *testing.T) {
	t.Parallel()
	f := newHostsFleet(t)
	clock := clocktest.New(now)
	w := start(t, clock, cmdOpts{env: f.env}, "wait", "--host", "alpha", "--session", "w1", "--state", "blocked", "--json", "--timeout", "1m")
	sshtest.Publish(t, f.alpha, "w1", "working", "x")
	sshtest.Publish(t, f.alpha, "w1", "blocked", "now")
	if code := w.exit(); code != 0 {
		t.Fatalf("exit %d: %s", code, w.stderr.String())
	}
	if !strings.HasPrefix(w.stdout.String(), `{"host":"alpha","file":`) || !strings.Contains(w.stdout.String(), `"state":"blocked"`) {
		t.Errorf("stdout %q", w.stdout.String())
	}

	r := run(t, runOpts{env: f.env}, "wait", "--host", "alpha", "--session", "nobody", "--state", "idle", "--timeout", "300ms")
	if r.code != base.ExitTimeout || !strings.Contains(r.stderr, "on host alpha") {
		t.Errorf("timeout: exit %d %s", r.code, r.stderr)
	}
	r = run(t, runOpts{env: f.env}, "wait", "--host", "nostatusls", "--session", "x", "--gone")
	if r.code != base.ExitError || !strings.Contains(r.stderr, "not installed") {
		t.Errorf("no statusls: exit %d %s", r.code, r.stderr)
	}
}

func TestHostsDoctor(t *testing.T) {
	t.Parallel()
	f := newHostsFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "x")
	r := run(t, runOpts{env: f.env}, "doctor", "--host", "alpha,nostatusls,down")
	if r.code != base.ExitError {
		t.Errorf("exit %d", r.code)
	}
	doctorSays(t, r.stdout,
		"connection reuse: on",
		"host alpha:\n  ran: ",
		"ok: ssh, statusls and its status directory answer (1 files, 1 fresh sessions)",
		"host nostatusls:",
		"PROBLEM (statusls-missing)",
		"fix: install statusls on nostatusls",
		"PROBLEM (ssh): ssh failed",
		"fix: make 'ssh -o BatchMode=yes down true' work",
	)
	// The same findings as one JSON object.
	r = run(t, runOpts{env: f.env}, "doctor", "--json", "--host", "alpha,nostatusls,down")
	var rep struct {
		ConnectionReuse bool `json:"connectionReuse"`
		OK              bool `json:"ok"`
		Hosts           []struct {
			Host, Kind, Error, Fix string
			OK                     bool
			Command                []string
			Files, Fresh           int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != base.ExitError {
		t.Fatalf("doctor --json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if !rep.ConnectionReuse || rep.OK || len(rep.Hosts) != 3 {
		t.Fatalf("doctor --json: %+v", rep)
	}
	if h := rep.Hosts[0]; h.Host != "alpha" || !h.OK || h.Files != 1 || h.Fresh != 1 || len(h.Command) == 0 || h.Command[len(h.Command)-1] != "statusls --json --all" {
		t.Errorf("alpha: %+v", h)
	}
	if h := rep.Hosts[1]; h.Host != "nostatusls" || h.OK || h.Kind != "statusls-missing" || !strings.HasPrefix(h.Fix, "install statusls on nostatusls") {
		t.Errorf("nostatusls: %+v", h)
	}
	if h := rep.Hosts[2]; h.Host != "down" || h.OK || h.Kind != "ssh" || h.Error == "" {
		t.Errorf("down: %+v", h)
	}
	// An older statusls on the host, which does not know --all.
	old := filepath.Join(t.TempDir(), "statusls-old")
	testbin.WriteProgram(t, old, "#!/bin/sh\necho 'statusls: flag provided but not defined: -all' >&2\nexit 2\n")
	env := map[string]string{}
	for k, v := range f.env {
		env[k] = v
	}
	env["STATUSLS_REMOTE_COMMAND"] = old
	r = run(t, runOpts{env: env}, "doctor", "--host", "alpha")
	if r.code != base.ExitError || !strings.Contains(r.stdout, "PROBLEM (version): its statusls refused the arguments: an older version? (statusls: flag provided but not defined: -all)") ||
		!strings.Contains(r.stdout, "fix: upgrade statusls on alpha") {
		t.Errorf("older statusls: exit %d\n%s", r.code, r.stdout)
	}
	// A status directory the host's statusls refuses.
	os.Chmod(f.beta, 0o777)
	r = run(t, runOpts{env: f.env}, "doctor", "--host", "beta")
	if r.code != base.ExitError || !strings.Contains(r.stdout, "PROBLEM (refused)") || !strings.Contains(r.stdout, "chmod 700") {
		t.Errorf("refused directory: exit %d\n%s", r.code, r.stdout)
	}
}

// TestUntilEOF: watch and wait --until-eof end with their input, as they
// do over ssh when statusls --host goes away.
func TestUntilEOF(t *testing.T) {
	dir := sshtest.StatusDir(t, "eof")
	env := map[string]string{"STATUS_DIR": dir}
	if r := run(t, runOpts{env: env}, "watch", "--json", "--until-eof"); r.code != base.ExitOK {
		t.Errorf("watch: exit %d %s", r.code, r.stderr)
	}
	if r := run(t, runOpts{env: env}, "wait", "--session", "x", "--state", "idle", "--until-eof"); r.code != base.ExitError || !strings.Contains(r.stderr, "standard input ended") {
		t.Errorf("wait: exit %d %s", r.code, r.stderr)
	}
}

// TestHostsWatchTable: on a terminal, watch --host draws statusls's table
// with a HOST column, and a line for a host that cannot be reached.
func TestHostsWatchTable(t *testing.T) {
	t.Parallel()
	f := newHostsFleet(t)
	sshtest.Publish(t, f.alpha, "a1", "working", "on alpha")
	clock := clocktest.New(now)
	env := f.env
	env["TERM"] = "xterm"
	w := start(t, clock, cmdOpts{terminal: true, width: 100, rows: 10, env: env}, "watch", "--host", "alpha,beta,down", "--color", "never")
	last := func(s string) string { return s[strings.LastIndex(s, seqHome)+len(seqHome):] }
	w.waitOut("the table", func(s string) bool {
		return strings.Contains(s, seqHome) && strings.HasPrefix(last(s), "STATE    SESSION  HOST   AGE") && strings.Contains(last(s), "\nworking  a1       alpha  ") &&
			strings.Contains(last(s), "host down offline: ssh failed")
	})
	sshtest.Publish(t, f.beta, "b1", "blocked", "on beta")
	out := w.waitOut("beta's session", func(s string) bool { return strings.Contains(last(s), "\nblocked  b1       beta   ") })
	if !strings.HasPrefix(out, seqEnter) {
		t.Errorf("not on the alternate screen: %q", out[:min(len(out), 40)])
	}
	w.signal(os.Interrupt)
	if code := w.exit(); code != 0 {
		t.Errorf("exit %d: %s", code, w.stderr.String())
	}
	if !strings.HasSuffix(w.stdout.String(), seqLeave) {
		t.Error("terminal not restored")
	}
}

func TestSplitHosts(t *testing.T) {
	got, err := splitHosts(" a,b  c,,a\tuser@d ")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "user@d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := splitHosts("a,-oProxyCommand=x"); err == nil {
		t.Error("a host starting with - was accepted")
	}
}

func TestHostsFromEnvAndFile(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }

	hosts, from, err := configuredHosts(getenv)
	if err != nil || len(hosts) != 0 {
		t.Fatalf("no file: %q, %v", hosts, err)
	}
	want := filepath.Join(home, ".config", "agentstatus", "hosts")
	if from != want {
		t.Errorf("from = %q, want %q", from, want)
	}
	os.MkdirAll(filepath.Dir(want), 0o700)
	os.WriteFile(want, []byte("# my machines\ndevbox, build  # the CI box\n\nuser@gpu\ndevbox\n"), 0o600)
	hosts, _, err = configuredHosts(getenv)
	if err != nil || !reflect.DeepEqual(hosts, []string{"devbox", "build", "user@gpu"}) {
		t.Errorf("file: %q, %v", hosts, err)
	}

	xdg := t.TempDir()
	env["XDG_CONFIG_HOME"] = xdg
	if p, _ := hostsFile(getenv); p != filepath.Join(xdg, "agentstatus", "hosts") {
		t.Errorf("XDG_CONFIG_HOME ignored: %s", p)
	}
	os.MkdirAll(filepath.Join(xdg, "agentstatus"), 0o700)
	os.WriteFile(filepath.Join(xdg, "agentstatus", "hosts"), []byte("ok\n-evil\n"), 0o600)
	if _, _, err := configuredHosts(getenv); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("a bad line is not reported with its number: %v", err)
	}

	env[hostsEnv] = "x, y"
	hosts, from, err = configuredHosts(getenv)
	if err != nil || !reflect.DeepEqual(hosts, []string{"x", "y"}) || from != "$"+hostsEnv {
		t.Errorf("$%s: %q %q %v", hostsEnv, hosts, from, err)
	}
}
