//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// OpenCode, as a new user runs it after `statuspub install opencode`: the
// plugin examples/opencode/agentstatus.js in ~/.config/opencode/plugins/,
// an @ai-sdk/openai-compatible provider pointed at the model.

// opencodeConfigDeps is what OpenCode installs into its config folder at
// every start (`@opencode-ai/plugin` at its own version, for the user's
// plugins and tools to import) unless that folder's package.json and
// package-lock.json already list it. Without the registry it waits for
// npm's retries: 71 s in a run of 1.18.33, before it loads any plugin. So
// it is installed once, outside the namespace, into the cache
// (prepareOpenCode), and each test's config folder gets a copy of the
// manifests and a link to its node_modules, as a user who has run OpenCode
// once online has.
var opencodeConfigDeps = npmPackage{"@opencode-ai/plugin", pinned["opencode"].version, ""}

// prepareOpenCode installs opencodeConfigDeps into the cache unless it is
// there.
func prepareOpenCode() error {
	p := opencodeConfigDeps
	if _, err := os.Stat(filepath.Join(p.dir(), "package-lock.json")); err == nil {
		return nil
	}
	if err := os.MkdirAll(p.dir(), 0o755); err != nil {
		return err
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", p.dir(), p.name+"@"+p.version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install %s@%s: %v\n%s", p.name, p.version, err, out)
	}
	return nil
}

// opencodeScreen tells OpenCode's state from its screen (1.18.33's TUI).
func opencodeScreen(s string) string {
	switch {
	case strings.Contains(s, "Permission required"), strings.Contains(s, "esc dismiss"):
		return blocked // a permission prompt; a question ("enter submit  esc dismiss")
	case strings.Contains(s, "esc interrupt"), strings.Contains(s, "esc again to interrupt"):
		return working // the turn runs, or waits to retry a failed request
	case strings.Contains(s, "ctrl+p commands"):
		return idle
	}
	return "" // starting: a blank screen
}

// opencodeHome is a temporary home with OpenCode configured for the model
// at url and its plugin installed; permission is OpenCode's "permission"
// setting (nil: its default). It returns the home and the environment.
func opencodeHome(t *testing.T, url string, permission map[string]any) (string, []string) {
	t.Helper()
	p := opencodeConfigDeps
	if _, err := os.Stat(filepath.Join(p.dir(), "package-lock.json")); err != nil {
		t.Fatalf("%s is not in the cache (prepare installs it outside the namespace): %v", p.name, err)
	}
	home := t.TempDir()
	env := userEnv(home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		// No update check, no fetch of the models.dev catalogue: both would
		// fail here anyway (loopback only), a little later.
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1")
	conf := filepath.Join(home, ".config", "opencode")
	for _, d := range []string{conf, filepath.Join(home, "proj"), filepath.Join(home, "proj2")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "e2e/e2e-model", "small_model": "e2e/e2e-model",
		"provider": map[string]any{"e2e": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "E2E",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "e2e-dummy-key"},
			"models":  map[string]any{"e2e-model": map[string]any{"name": "E2E Model", "tool_call": true}},
		}},
	}
	if permission != nil {
		config["permission"] = permission
	}
	data, _ := json.MarshalIndent(config, "", "  ")
	if err := os.WriteFile(filepath.Join(conf, "opencode.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(p.dir(), f))
		if err == nil {
			err = os.WriteFile(filepath.Join(conf, f), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(p.dir(), "node_modules"), filepath.Join(conf, "node_modules")); err != nil {
		t.Fatal(err)
	}
	install(t, env, "opencode")
	tracePlugin(t, filepath.Join(conf, "plugins"))
	return home, env
}

// tracePlugin installs, next to ours, a plugin that appends every event
// OpenCode passes to plugins, with its time, process and folder, one line
// each, to $AGENTSTATUS_E2E_TRACE/opencode.jsonl: what the real OpenCode
// sent, for the recorded events of examples/opencode/testdata. Without
// AGENTSTATUS_E2E_TRACE it does nothing.
func tracePlugin(t testing.TB, plugins string) {
	dir := os.Getenv("AGENTSTATUS_E2E_TRACE")
	if dir == "" {
		return
	}
	log, _ := json.Marshal(filepath.Join(dir, "opencode.jsonl"))
	src := `import { appendFileSync } from "node:fs";
const noise = new Set(["plugin.added", "message.part.delta", "catalog.updated", "reference.updated", "integration.updated"]);
export const Trace = async ({ directory }) => ({
  event: async ({ event }) => {
    if (noise.has(event.type)) return;
    appendFileSync(` + string(log) + `, JSON.stringify({ t: Date.now(), pid: process.pid, directory, event }) + "\n");
  },
});
`
	if err := os.WriteFile(filepath.Join(plugins, "agentstatus-trace.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// askBash is the permission setting under which every shell command asks.
var askBash = map[string]any{"bash": "ask"}

// startOpenCode starts OpenCode's TUI in tmux in ~/proj and samples the
// status.
func startOpenCode(t *testing.T, permission map[string]any) *agentRun {
	t.Helper()
	m := startModel(t, chatHandler)
	home, env := opencodeHome(t, m.url, permission)
	proj := filepath.Join(home, "proj")
	// Two arguments: tmux runs OpenCode itself, not a shell, so the pane's
	// pid is OpenCode's.
	tm := startTmux(t, proj, env, []string{pinned["opencode"].path(), proj})
	return watchAgent(t, "opencode", home, tm, m, opencodeScreen)
}

// escTwice interrupts OpenCode: the first Esc only arms the interrupt
// ("esc again to interrupt").
func escTwice(r *agentRun) {
	r.tm.send("Escape")
	time.Sleep(300 * time.Millisecond)
	r.tm.send("Escape")
}

// slash runs a slash command: it types it, waits for the completion list
// to offer it (its description on screen), and presses Enter; then, with
// done, it waits until done(screen) says the command has acted.
func slash(cmd, desc string, done func(screen string) bool) func(*agentRun) {
	return func(r *agentRun) {
		r.t.Helper()
		r.tm.send("C-u")
		r.tm.run("send-keys", "-t", "e2e", "-l", cmd)
		if !waitFor(func() bool { return strings.Contains(r.tm.capture(), desc) }) {
			r.t.Fatalf("%s: the completion list never offered it (%q):\n%s", cmd, desc, r.tm.capture())
		}
		r.tm.send("Enter")
		if done != nil && !waitFor(func() bool { return done(r.tm.capture()) }) {
			r.t.Fatalf("%s did not act:\n%s", cmd, r.tm.capture())
		}
	}
}

// waitFor polls ok until it holds, for up to opencodeTurn.
func waitFor(ok func() bool) bool {
	deadline := time.Now().Add(opencodeTurn)
	for time.Now().Before(deadline) {
		if ok() {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// approveBoth approves the prompt of "echo first", waits for the one of
// "echo second", and approves it too.
func approveBoth(r *agentRun) {
	r.tm.send("Enter")
	waitFor(func() bool {
		_, dialog, ok := strings.Cut(r.tm.capture(), "Permission required")
		return ok && strings.Contains(dialog, "echo second")
	})
	r.tm.send("Enter")
}

// opencodeStartup bounds the wait for the first prompt, and opencodeTurn
// for any other screen: OpenCode 1.18.33 took 20-80 s to show its prompt,
// and up to 100 s between a prompt and its request to the model, on a
// 2-core machine loaded by other tests (load average 20).
const (
	opencodeStartup = 180 * time.Second
	opencodeTurn    = 150 * time.Second
)

// opencodeKeys is how the moments' steps talk to OpenCode.
var opencodeKeys = keys{typ: typing, settle: settled, within: opencodeTurn}

// slow gives every step without a bound of its own opencodeTurn.
func slow(steps ...step) []step {
	for i := range steps {
		if steps[i].within == 0 {
			steps[i].within = opencodeTurn
		}
	}
	return steps
}

func TestOpenCode(t *testing.T) {
	needE2E(t)
	r := startOpenCode(t, askBash)
	r.do("start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: opencodeStartup})
	o := opencodeKeys
	r.do("text", o.turn("e2e:text", "")...)
	r.do("approve", o.approved("e2e:tool sleep 4; echo approved", `^bash: sleep 4; echo approved$`, "", "tool ends", "")...)
	r.do("deny", o.asks("e2e:tool echo denied", "", o.step("deny", pressing("Escape"), idle, "^done$"))...)
	r.do("esc-in-tool", o.asks("e2e:tool tail -f /dev/null", "",
		step{name: "approve", act: pressing("Enter"), truth: working, settle: time.Second},
		o.step("Esc", escTwice, idle, "^cancelled$"))...)
	r.do("esc-streaming", slow(
		step{name: "prompt", act: typing("e2e:slow"), truth: working, settle: time.Second},
		o.step("Esc", escTwice, idle, ""))...)
	r.do("failed-turn", o.failed("e2e:fail 400", "^failed: APIError 400$")...)
	// A 500 is retried, with a growing wait, until the user interrupts.
	r.do("failed-turn-500", slow(
		step{name: "prompt", act: typing("e2e:fail 500"), truth: working, settle: 3 * time.Second},
		o.step("Esc", escTwice, idle, ""))...)
	// Two calls, two prompts, one after the other.
	r.do("parallel", o.asks("e2e:parallel echo first ;; echo second", "", o.step("approve both", approveBoth, idle, ""))...)
	r.do("question", o.asks("e2e:ask Which database?", `^question: Which database\?$`,
		step{name: "answer", act: pressing("Enter"), truth: working}, o.step("done", nil, idle, ""))...)
	// /clear opens a new session: the last one's prompt leaves the screen.
	r.do("clear", slow(step{name: "/clear", act: slash("/clear", "New session", func(s string) bool {
		return !strings.Contains(s, "e2e:ask Which database?")
	}), truth: idle, settle: time.Second})...)
	r.do("quit", slow(step{name: "/exit", act: slash("/exit", "Exit the app", nil), truth: gone})...)
}

// TestOpenCodeDefaultPermissions runs OpenCode with its default
// permissions, under which a shell command in the project runs without a
// prompt; then kills it (one start for both: OpenCode is slow to start).
func TestOpenCodeDefaultPermissions(t *testing.T) {
	needE2E(t)
	r := startOpenCode(t, nil)
	r.do("default-start", step{name: "waits for the first prompt", truth: idle, settle: time.Second, within: opencodeStartup})
	r.do("default-tool", opencodeKeys.turn("e2e:tool sleep 3; touch made-by-e2e", "")...)
	// Every process under the terminal at once, as a crash or
	// systemd-oomd would: OpenCode and its statuspub child die together,
	// and only the detached heartbeat owner is left to remove the record.
	r.do("kill-9", step{name: "kill -9 of the process tree", act: func(r *agentRun) {
		pane := r.tm.pid()
		for _, pid := range append(childPids(pane), pane) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}, truth: gone})
}

// TestOpenCodeTwoFolders runs one `opencode serve` with a TUI attached in
// each of two project folders. OpenCode loads the plugin once per folder;
// the process has one record, blocked while either folder waits.
func TestOpenCodeTwoFolders(t *testing.T) {
	needE2E(t)
	m := startModel(t, chatHandler)
	home, env := opencodeHome(t, m.url, askBash)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	serve := exec.Command(pinned["opencode"].path(), "serve", "--hostname", "127.0.0.1", "--port", url[strings.LastIndex(url, ":")+1:])
	serve.Dir, serve.Env = home, env
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	// A client started before the server listens exits at once.
	if !waitFor(func() bool {
		c, err := net.Dial("tcp", url[len("http://"):])
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("opencode serve never listened on %s", url)
	}
	attach := func(dir string) *tmux {
		return startTmux(t, dir, env, []string{pinned["opencode"].path(), "attach", url, "--dir", dir})
	}
	a, b := attach(filepath.Join(home, "proj")), attach(filepath.Join(home, "proj2"))
	// The truth of the process: blocked if either folder waits, else
	// working if either works, else idle. The run's own screen is b's.
	both := func(sb string) string {
		sa := opencodeScreen(a.capture())
		sb = opencodeScreen(sb)
		switch {
		case sa == "" || sb == "":
			return ""
		case sa == blocked || sb == blocked:
			return blocked
		case sa == working || sb == working:
			return working
		}
		return idle
	}
	r := &agentRun{t: t, agent: "opencode", tm: b, classify: both,
		status: startSampler(t, filepath.Join(home, ".pi", "gentle-ai", "agent-status"))}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("folder 1:\n%s\nfolder 2:\n%s\nmodel:\n%s", a.capture(), b.capture(), m.Logs())
		}
	})
	r.do("two-folders-start", step{name: "both wait for a prompt", truth: idle, settle: time.Second, within: opencodeStartup})
	r.do("two-folders", slow(
		step{name: "folder 2 asks", act: typing("e2e:tool echo two"), truth: blocked, settle: settled},
		// Folder 1 works and ends its turn while folder 2's prompt waits.
		step{name: "folder 1 works", act: func(*agentRun) {
			a.send("C-u")
			a.typeLine("e2e:text")
		}, truth: blocked, settle: 5 * time.Second})...)
	// The record stays blocked across its heartbeats (9 s).
	r.holds("two-folders", "wait holds", blocked, 20*time.Second)
	r.do("two-folders", slow(
		step{name: "folder 2 approves", act: pressing("Enter"), truth: idle, settle: settled})...)
}

// holds checks that the screen shows truth for d from now, and reports how
// long in that time the status showed something else (0 when it agreed
// throughout).
func (r *agentRun) holds(scenario, name, truth string, d time.Duration) {
	r.t.Helper()
	t0 := time.Now()
	deadline := t0.Add(d)
	for time.Now().Before(deadline) {
		if got := r.screenTruth(); got != truth {
			r.t.Fatalf("%s %s (%s): the screen left %s for %q:\n%s", r.agent, scenario, name, truth, got, r.tm.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
	wrong := r.status.wrongWithin(t0, deadline, truth)
	report(r.agent, scenario, -1, name, truth, wrong, true, "")
	if wrong > 0 {
		r.t.Errorf("%s %s (%s): the screen showed %s for %v; the status disagreed for %.2f s of it\nstatus timeline:\n%s",
			r.agent, scenario, name, truth, d, wrong.Seconds(), r.status.timeline(t0))
	}
}

// wrongWithin is how long in [from, to) the status showed other than want.
func (s *sampler) wrongWithin(from, to time.Time, want string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var wrong time.Duration
	for i, c := range s.changes {
		end := to
		if i+1 < len(s.changes) {
			end = s.changes[i+1].at
		}
		start := c.at
		if start.Before(from) {
			start = from
		}
		if end.After(to) {
			end = to
		}
		if c.state != want && end.After(start) {
			wrong += end.Sub(start)
		}
	}
	return wrong
}
