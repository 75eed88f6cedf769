package conformance

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

func TestACPTracesParse(t *testing.T) {
	traces, err := ACPTraces("")
	if err != nil {
		t.Fatal(err)
	}
	if len(traces) == 0 {
		t.Fatal("no ACP traces")
	}
	for _, tr := range traces {
		if tr.Session == "" || len(tr.Steps) < 4 || tr.Steps[len(tr.Steps)-1].Want != "gone" {
			t.Errorf("%s: session %q, %d steps, ends %+v", tr.ID, tr.Session, len(tr.Steps), tr.Steps[len(tr.Steps)-1])
		}
	}
}

// statuspub acp passes every trace, and bridges that break a rule fail.
func TestACPTracesAgainstStatuspub(t *testing.T) {
	t.Parallel()
	testmain.SkipShort(t, "starts statuspub acp for every trace; the broken bridges wait out their deadlines")
	if runtime.GOOS == "windows" {
		t.Skip("the hook session protocol needs POSIX locks")
	}
	dir, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(dir, "statuspub")
	rep, err := RunACP(context.Background(), Options{Command: []string{pub, "acp", "--config-home", "{home}", "--"}, TempDir: t.TempDir(), Timeout: 2 * time.Second, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Outcome != outcomePass {
			t.Errorf("%s: %s: %s\nexpected %s\nactual   %s\n%s", r.ID, r.Outcome, r.Reason, r.Expected, r.Actual, r.Stderr)
		}
	}
	// A bridge that changes a byte, or publishes nothing.
	for name, argv := range map[string][]string{
		"publishes nothing": {"sh", "-c", `exec "$@"`, "sh"},
		"adds a byte":       {"sh", "-c", `sed -u 's/^/ /' | "$@"`, "sh"},
	} {
		if _, err := exec.LookPath("sed"); err != nil {
			t.Skip("no sed")
		}
		rep, err := RunACP(context.Background(), Options{Command: argv, TempDir: t.TempDir(), Timeout: 500 * time.Millisecond, Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Outcome != outcomeFail {
				t.Errorf("%s: %s passed %s", name, strings.Join(argv, " "), r.ID)
			}
		}
	}
}
