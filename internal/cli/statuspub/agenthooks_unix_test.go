//go:build unix

package statuspub_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/statusfile"
)

// The agents take exit status 2 as "block this action": the stdin adapters
// report even a usage error as one line and exit 0 (1 with --strict), and
// write nothing.
func TestAgentHooksNeverExit2(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	for _, cmd := range []string{"claude-hook", "codex-hook", "gemini-hook"} {
		for _, args := range [][]string{
			{cmd, "--dir", dir, "extra"},
			{cmd, "--dir", dir, "--bogus"},
			{cmd, "--dir", dir, "--pid", "-1"},
			{cmd, "--dir", dir, "--pid"},
		} {
			for _, strict := range []bool{false, true} {
				a, want := args, 0
				if strict {
					a, want = append([]string{cmd, "--strict"}, args[1:]...), 1
				}
				code, stderr := pub(t, `{"session_id":"s","hook_event_name":"Stop"}`, nil, a...)
				if code != want || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "statuspub: "+cmd+": ") {
					t.Errorf("%q: exit %d, stderr %q; want exit %d and one line", a, code, stderr, want)
				}
			}
		}
		var out, errOut bytes.Buffer
		if code := statuspub.Run([]string{cmd, "--help"}, base.Env{Stdout: &out, Stderr: &errOut}); code != base.ExitOK || !strings.Contains(out.String(), cmd) {
			t.Errorf("%s --help: exit %d", cmd, code)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("usage errors wrote %v", names)
	}
}

// Bad payloads: one line, exit 0 (1 with --strict), the record untouched.
func TestAgentHooksBadInput(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "agent-status")
	mustPub(t, "", nil, "set", "--dir", dir, "--session", "b", "--pid", "0", "--state", "working", "--title", "Keep me")
	for cmd, stop := range map[string]string{"codex-hook": "Stop", "gemini-hook": "AfterAgent"} {
		for _, stdin := range []string{"", "not json", `{"hook_event_name":"` + stop + `"}`, `{"session_id":"a\u0007b","hook_event_name":"` + stop + `"}`} {
			code, stderr := pub(t, stdin, nil, cmd, "--dir", dir)
			if code != 0 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "statuspub: "+cmd+": ") {
				t.Errorf("%s < %q: exit %d, stderr %q", cmd, stdin, code, stderr)
			}
		}
		// Unknown events and the events that must never publish write nothing.
		for _, ev := range []string{"SomethingNew", "AfterModel", "SubagentStop", "PreCompress"} {
			mustPub(t, `{"session_id":"u","hook_event_name":"`+ev+`","cwd":"/w"}`, nil, cmd, "--dir", dir)
		}
	}
	if _, ok := record(t, dir, "u"); ok {
		t.Error("an ignored event wrote a record")
	}
	rec := mustRecord(t, dir, "b")
	if rec.State != statusfile.Working || rec.Title != "Keep me" {
		t.Errorf("bad input changed the record: %+v", rec)
	}
}
