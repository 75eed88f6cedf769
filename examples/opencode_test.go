//go:build unix

package examples_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/agentstatus/agentstatus/internal/testmain"
	"github.com/agentstatus/agentstatus/statusfile"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// The OpenCode plugin runs under Node against a stand-in for OpenCode's
// plugin host (opencode/testdata/harness.mjs): events go in one per line,
// as OpenCode's event hook receives them (https://opencode.ai/docs/plugins/,
// event types and properties as OpenCode's SDK defines them).

type ocHost struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	pid int
}

func startOpenCode(t *testing.T, env ...string) *ocHost {
	t.Helper()
	return startOpenCodeFolders(t, []string{t.TempDir()}, env...)
}

// startOpenCodeFolders starts one OpenCode process that serves the project
// folders dirs: the plugin is loaded once per folder.
func startOpenCodeFolders(t *testing.T, dirs []string, env ...string) *ocHost {
	t.Helper()
	node := requireTool(t, "node")
	args := append([]string{filepath.Join("opencode", "testdata", "harness.mjs"), filepath.Join("opencode", "agentstatus.js")}, dirs...)
	cmd := exec.Command(node, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &ocHost{t: t, cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	var hello struct{ PID, Plugins, Instances int }
	if !h.out.Scan() || json.Unmarshal(h.out.Bytes(), &hello) != nil || hello.Plugins != 1 || hello.Instances != len(dirs) {
		t.Fatalf("the harness did not load one plugin per folder: %q", h.out.Text())
	}
	h.pid = hello.PID
	return h
}

// event passes one event to the plugin and waits for its hook to return.
func (h *ocHost) event(typ string, props map[string]any) {
	h.t.Helper()
	line, _ := json.Marshal(map[string]any{"type": typ, "properties": props})
	if _, err := h.in.Write(append(line, '\n')); err != nil {
		h.t.Fatal(err)
	}
	if !h.out.Scan() || h.out.Text() != "ok" {
		h.t.Fatalf("event %s: harness answered %q", typ, h.out.Text())
	}
}

// eventTo passes one event to the plugin instance of the i-th folder.
func (h *ocHost) eventTo(i int, typ string, props map[string]any) {
	h.t.Helper()
	line, _ := json.Marshal(map[string]any{"to": i, "event": map[string]any{"type": typ, "properties": props}})
	if _, err := h.in.Write(append(line, '\n')); err != nil {
		h.t.Fatal(err)
	}
	if !h.out.Scan() || h.out.Text() != "ok" {
		h.t.Fatalf("event %s to folder %d: harness answered %q", typ, i, h.out.Text())
	}
}

// exit ends OpenCode, as quitting it would.
func (h *ocHost) exit() {
	h.in.Close()
	if err := h.cmd.Wait(); err != nil {
		h.t.Fatalf("the harness: %v", err)
	}
}

type ocStep struct {
	typ   string
	props map[string]any
	state string
	title any // nil: no title
}

func ocSteps() []ocStep {
	info := func(m map[string]any) map[string]any { return map[string]any{"info": m} }
	status := func(id, typ string) map[string]any {
		return map[string]any{"sessionID": id, "status": map[string]any{"type": typ}}
	}
	return []ocStep{
		{"session.created", info(map[string]any{"id": "ses_1", "title": "New session", "projectID": "prj_test"}), "idle", nil},
		{"server.connected", map[string]any{}, "idle", nil}, // not ours
		{"session.status", status("ses_1", "busy"), "working", "New session"},
		{"session.updated", info(map[string]any{"id": "ses_1", "title": "Fix the tests"}), "working", "Fix the tests"},
		{"permission.asked", map[string]any{"id": "per_1", "sessionID": "ses_1", "permission": "bash", "patterns": []string{"git push"}}, "blocked", "Fix the tests"},
		{"permission.replied", map[string]any{"sessionID": "ses_1", "requestID": "per_1", "reply": "once"}, "working", "Fix the tests"},
		{"session.created", info(map[string]any{"id": "ses_2", "parentID": "ses_1", "title": "Explore the code (@explore subagent)"}), "working", "Fix the tests"},
		{"session.status", status("ses_2", "busy"), "working", "Fix the tests"},
		{"question.asked", map[string]any{"id": "que_1", "sessionID": "ses_2", "questions": []any{map[string]any{"question": "Which database?", "header": "DB"}}}, "blocked", "Fix the tests"},
		{"question.replied", map[string]any{"sessionID": "ses_2", "requestID": "que_1", "answers": []any{}}, "working", "Fix the tests"},
		{"session.status", status("ses_2", "idle"), "working", "Fix the tests"},
		{"session.status", status("ses_1", "retry"), "working", "Fix the tests"},
		// The user interrupts: the turn ends with an abort error.
		{"session.error", map[string]any{"sessionID": "ses_1", "error": map[string]any{"name": "MessageAbortedError"}}, "idle", nil},
		{"session.status", status("ses_1", "busy"), "working", "Fix the tests"},
		{"permission.updated", map[string]any{"id": "per_2", "sessionID": "ses_1", "type": "bash"}, "blocked", "Fix the tests"}, // older versions
		{"permission.replied", map[string]any{"sessionID": "ses_1", "permissionID": "per_2", "response": "reject"}, "working", "Fix the tests"},
		{"session.idle", map[string]any{"sessionID": "ses_1"}, "idle", nil},
		{"session.deleted", info(map[string]any{"id": "ses_2"}), "idle", nil},
		// A turn the API refuses with HTTP 429.
		{"session.status", status("ses_1", "busy"), "working", "Fix the tests"},
		{"session.error", map[string]any{"sessionID": "ses_1", "error": map[string]any{"name": "APIError", "data": map[string]any{"message": "slow down", "statusCode": 429}}}, "idle", nil},
		{"session.status", status("ses_1", "idle"), "idle", nil},
	}
}

// With a stand-in statuspub: one child for the whole life of the plugin,
// started as `statuspub serve` for this process, and only changes sent.
func TestOpenCodePluginProtocol(t *testing.T) {
	testmain.SkipShort(t, "starts the plugin in Node and waits for each event's record")
	t.Parallel()
	log := filepath.Join(t.TempDir(), "stub")
	h := startOpenCode(t, "AGENTSTATUS_STATUSPUB="+filepath.Join("opencode", "testdata", "stub-statuspub.sh"), "STUB_LOG="+log)
	for _, st := range ocSteps() {
		h.event(st.typ, st.props)
	}
	h.exit()
	waitForFile(t, log+".spawns", func(s string) bool { return strings.HasSuffix(s, "eof\n") })
	spawns, _ := os.ReadFile(log + ".spawns")
	lines := strings.Split(strings.TrimSpace(string(spawns)), "\n")
	want := fmt.Sprintf("serve --session opencode-%d --agent opencode --pid %d --state idle --heartbeat-owner --cwd ", h.pid, h.pid)
	if len(lines) != 2 || !strings.Contains(lines[0], want) {
		t.Fatalf("spawns: %q; want one `statuspub %s...` and its end of input", lines, want)
	}
	got, _ := os.ReadFile(log + ".lines")
	wantLines := `{"state":"working"}
{"title":"New session"}
{"title":"Fix the tests"}
{"waitingFor":{"kind":"permission","tool":"bash","detail":"git push"}}
{"state":"working"}
{"waitingFor":{"kind":"question","tool":null,"detail":"Which database?"}}
{"state":"working"}
{"ended":{"reason":"cancelled","detail":null}}
{"title":null}
{"state":"working"}
{"title":"Fix the tests"}
{"waitingFor":{"kind":"permission","tool":"bash","detail":null}}
{"state":"working"}
{"ended":{"reason":"done","detail":null}}
{"title":null}
{"state":"working"}
{"title":"Fix the tests"}
{"ended":{"reason":"rate_limited","detail":"APIError"}}
{"title":null}
`
	if string(got) != wantLines {
		t.Errorf("protocol lines:\n%s\nwant:\n%s", got, wantLines)
	}
}

// One OpenCode process serving two project folders (`opencode serve`,
// clients in both) loads the plugin once per folder. It is one process, so
// one record: one statuspub child, and blocked while a session of either
// folder waits, whatever the other folder's sessions do. (Two children
// would each rewrite the record with their own folder's state at every
// heartbeat: OpenCode 1.18.33 showed idle most of the time while a
// permission prompt waited.) Also with two copies of the plugin file
// loaded (installed globally and in a project).
func TestOpenCodePluginFolders(t *testing.T) {
	testmain.SkipShort(t, "starts the plugin in Node for each folder layout")
	t.Parallel()
	status := func(id, typ string) map[string]any {
		return map[string]any{"sessionID": id, "status": map[string]any{"type": typ}}
	}
	info := func(id, title string) map[string]any {
		return map[string]any{"info": map[string]any{"id": id, "title": title}}
	}
	steps := []struct {
		folder int
		typ    string
		props  map[string]any
	}{
		{0, "session.created", info("ses_a", "Folder A")},
		{0, "session.status", status("ses_a", "busy")},
		{1, "session.created", info("ses_b", "Folder B")},
		{1, "session.status", status("ses_b", "busy")},
		{1, "permission.asked", map[string]any{"id": "per_b", "sessionID": "ses_b", "permission": "bash", "patterns": []string{"echo two"}}},
		// Folder A's turn ends while folder B's prompt still waits.
		{0, "session.status", status("ses_a", "idle")},
		{0, "session.idle", map[string]any{"sessionID": "ses_a"}},
		{1, "permission.replied", map[string]any{"sessionID": "ses_b", "requestID": "per_b", "reply": "once"}},
		{1, "session.status", status("ses_b", "idle")},
		{1, "session.idle", map[string]any{"sessionID": "ses_b"}},
	}
	want := `{"state":"working"}
{"title":"Folder A"}
{"waitingFor":{"kind":"permission","tool":"bash","detail":"echo two"}}
{"title":"Folder B"}
{"state":"working"}
{"ended":{"reason":"done","detail":null}}
{"title":null}
`
	for _, imports := range []string{"once", "copies"} {
		t.Run(imports, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "stub")
			dirs := []string{t.TempDir(), t.TempDir()}
			h := startOpenCodeFolders(t, dirs, "AGENTSTATUS_STATUSPUB="+filepath.Join("opencode", "testdata", "stub-statuspub.sh"),
				"STUB_LOG="+log, "HARNESS_IMPORT="+imports)
			for _, st := range steps {
				h.eventTo(st.folder, st.typ, st.props)
			}
			h.exit()
			waitForFile(t, log+".spawns", func(s string) bool { return strings.HasSuffix(s, "eof\n") })
			spawns, _ := os.ReadFile(log + ".spawns")
			lines := strings.Split(strings.TrimSpace(string(spawns)), "\n")
			wantSpawn := fmt.Sprintf("serve --session opencode-%d --agent opencode --pid %d --state idle --heartbeat-owner --cwd %s", h.pid, h.pid, dirs[0])
			if len(lines) != 2 || !strings.HasSuffix(lines[0], wantSpawn) || lines[1] != "eof" {
				t.Fatalf("spawns: %q; want one `statuspub %s` for the process, and its end of input", lines, wantSpawn)
			}
			if got, _ := os.ReadFile(log + ".lines"); string(got) != want {
				t.Errorf("protocol lines:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// With the real statuspub: after every event, statusls --json shows the
// state and title, with the OpenCode process's pid; when OpenCode exits
// the record goes.
func TestOpenCodePluginEndToEnd(t *testing.T) {
	testmain.SkipShort(t, "starts the plugin in Node with statuspub and waits for each record")
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	h := startOpenCode(t, "AGENTSTATUS_STATUSPUB="+filepath.Join(binDir, "statuspub"), "GENTLE_PI_CONFIG_HOME="+home)
	session := fmt.Sprintf("opencode-%d", h.pid)
	statusls := realStatusls(t)
	show := func() []map[string]any {
		out, err := exec.Command(statusls, "--json", "--config-home", home).Output()
		if err != nil {
			t.Fatalf("statusls --json: %v", err)
		}
		var got []map[string]any
		json.Unmarshal(out, &got)
		return got
	}
	for i, st := range ocSteps() {
		h.event(st.typ, st.props)
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := show()
			if len(got) == 1 && got[0]["session"] == session && got[0]["state"] == st.state && got[0]["title"] == st.title &&
				got[0]["agent"] == "opencode" && got[0]["pid"] == float64(h.pid) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %d %s: statusls shows %v, want %s %v", i, st.typ, got, st.state, st.title)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	h.exit()
	deadline := time.Now().Add(10 * time.Second)
	for len(show()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after OpenCode exited statusls still shows %v", show())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Without statuspub the plugin stays silent and OpenCode goes on.
func TestOpenCodePluginWithoutStatuspub(t *testing.T) {
	testmain.SkipShort(t, "starts the plugin in Node and waits for its message")
	t.Parallel()
	h := startOpenCode(t, "AGENTSTATUS_STATUSPUB="+filepath.Join(t.TempDir(), "missing"))
	for _, st := range ocSteps()[:5] {
		h.event(st.typ, st.props)
	}
	h.exit()
}

func waitForFile(t *testing.T, path string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if ok(string(data)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %q", path, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The events the real OpenCode passed to its plugins, recorded by the
// end-to-end harness (internal/e2e, AGENTSTATUS_E2E_TRACE) and trimmed
// (opencode/testdata/real-*.txtar: one file a run, one event a line, with
// the folder whose plugin instance received it; "want STATE" is what the
// agent's screen showed then). Replayed into the plugin with the real
// statuspub, the record follows the screen.
func TestOpenCodePluginRealEvents(t *testing.T) {
	testmain.SkipShort(t, "starts the plugin in Node for every recorded session and waits for each record")
	t.Parallel() // each run has its own folders, config home and OpenCode process
	traces, _ := filepath.Glob(filepath.Join("opencode", "testdata", "real-*.txtar"))
	if len(traces) == 0 {
		t.Fatal("no recorded events")
	}
	statusls := realStatusls(t)
	for _, trace := range traces {
		ar, err := txtar.ParseFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ar.Comment), "source: OpenCode ") {
			t.Errorf("%s: no source line naming the OpenCode version", trace)
		}
		for _, f := range ar.Files {
			t.Run(filepath.Base(trace)+"/"+f.Name, func(t *testing.T) {
				t.Parallel()
				home := filepath.Join(t.TempDir(), "home")
				h := startOpenCodeFolders(t, []string{t.TempDir(), t.TempDir()},
					"AGENTSTATUS_STATUSPUB="+filepath.Join(binDir, "statuspub"), "GENTLE_PI_CONFIG_HOME="+home)
				show := func() []string {
					out, err := exec.Command(statusls, "--json", "--config-home", home).Output()
					if err != nil {
						t.Fatalf("statusls --json: %v", err)
					}
					var got []struct{ State string }
					json.Unmarshal(out, &got)
					var states []string
					for _, r := range got {
						states = append(states, r.State)
					}
					return states
				}
				// why is what the record says of why it is in its state.
				why := func() string {
					files, _ := filepath.Glob(filepath.Join(home, "agent-status", "*.json"))
					for _, f := range files {
						if data, err := os.ReadFile(f); err == nil {
							if rec, err := statusfile.Decode(data); err == nil {
								return rec.Why()
							}
						}
					}
					return ""
				}
				for n, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					if want, ok := strings.CutPrefix(line, "want "); ok {
						// "want STATE" or "want STATE why: WORDS".
						want, wantWhy, checkWhy := strings.Cut(want, " why: ")
						if !checkWhy {
							want, checkWhy = strings.TrimSuffix(want, " why:"), strings.HasSuffix(want, " why:")
						}
						deadline := time.Now().Add(10 * time.Second)
						for got := show(); len(got) != 1 || got[0] != want || checkWhy && why() != wantWhy; got = show() {
							if time.Now().After(deadline) {
								t.Fatalf("line %d: statusls shows %q (why %q), want one record %s (why %q)", n+1, got, why(), want, wantWhy)
							}
							time.Sleep(20 * time.Millisecond)
						}
						if os.Getenv("OC_WHY_DUMP") != "" {
							t.Logf("WHY %s %d %s", f.Name, n+1, why())
						}
						continue
					}
					var ev struct {
						Folder int
						Event  struct {
							Type       string
							Properties map[string]any
						}
					}
					if err := json.Unmarshal([]byte(line), &ev); err != nil {
						t.Fatalf("line %d: %v", n+1, err)
					}
					h.eventTo(ev.Folder, ev.Event.Type, ev.Event.Properties)
				}
				// One publisher for the process, however many folders: two
				// would rewrite the record in turn at every heartbeat.
				if n := children(t, h.pid); n != 1 {
					t.Errorf("the OpenCode process has %d child processes, want one statuspub", n)
				}
				h.exit()
			})
		}
	}
}

// children counts the processes whose parent is pid.
func children(t *testing.T, pid int) int {
	t.Helper()
	out, err := exec.Command("ps", "-A", "-o", "ppid=").Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	n := 0
	for _, f := range strings.Fields(string(out)) {
		if f == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}

// Every process under the terminal killed at once (kill -9 of the tree, as
// systemd-oomd does to a terminal's scope): OpenCode and its statuspub
// child die together, and the detached heartbeat owner still removes the
// record once OpenCode is gone, long before it would go stale (30 s).
func TestOpenCodePluginKilledTree(t *testing.T) {
	testmain.SkipShort(t, "kills a Node process tree and waits for the heartbeating owner to remove the record")
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	h := startOpenCode(t, "AGENTSTATUS_STATUSPUB="+filepath.Join(binDir, "statuspub"), "GENTLE_PI_CONFIG_HOME="+home,
		"STATUSPUB_HEARTBEAT=200ms")
	statusls := realStatusls(t)
	count := func() int {
		out, err := exec.Command(statusls, "--json", "--config-home", home).Output()
		if err != nil {
			t.Fatalf("statusls --json: %v", err)
		}
		var got []map[string]any
		json.Unmarshal(out, &got)
		return len(got)
	}
	h.event("session.status", map[string]any{"sessionID": "ses_1", "status": map[string]any{"type": "busy"}})
	waitForFile(t, filepath.Join(home, "agent-status"), func(string) bool { return count() == 1 })
	tree := append(descendants(h.pid), h.pid)
	for _, pid := range tree {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	killed := time.Now()
	deadline := killed.Add(10 * time.Second)
	for count() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("10 s after OpenCode's process tree (%v) was killed statusls still shows its record", tree)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the record went %v after the tree was killed", time.Since(killed))
}

// descendants lists pid's children and theirs.
func descendants(pid int) []int {
	out, _ := exec.Command("ps", "-A", "-o", "pid=,ppid=").Output()
	kids := map[int][]int{}
	for _, line := range strings.Split(string(out), "\n") {
		var p, pp int
		if n, _ := fmt.Sscan(line, &p, &pp); n == 2 {
			kids[pp] = append(kids[pp], p)
		}
	}
	var all []int
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			all = append(all, k)
			walk(k)
		}
	}
	walk(pid)
	return all
}
