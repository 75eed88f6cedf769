package conformance

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testmain"
)

// The Python bridge passes the ACP traces, and each of its flaws (a
// misreading of SPEC.md §13.5 an implementer could make) fails every
// trace. conformance/README.md lists them. A bridge that ignores
// session/cancel is not among them: Gemini CLI and OpenCode answer a
// cancelled prompt with stopReason cancelled themselves, so no real
// trace can tell.
var pythonACPFlaws = []string{"answer-keeps-blocked", "error-is-done", "bare-session-id", "close-keeps-records"}

func TestPythonACPBridge(t *testing.T) {
	testmain.SkipShort(t, "starts the Python ACP bridge for every trace under every flaw; each failing trace waits out its 2 s deadline")
	t.Parallel()
	requireTool(t, "python3")
	// The bridges, each trace of each, run side by side: a failing trace
	// mostly waits out its deadline.
	flaws := append([]string{""}, pythonACPFlaws...)
	reps := make([]*Report, len(flaws))
	errs := make([]error, len(flaws))
	var wg sync.WaitGroup
	for i, flaw := range flaws {
		cmd := append(pythonFlawCommand(t, flaw, "acp_bridge.py"), "--")
		dir := t.TempDir()
		wg.Go(func() {
			reps[i], errs[i] = RunACP(context.Background(), Options{Command: cmd, TempDir: dir, Timeout: 2 * time.Second, Parallel: 2})
		})
	}
	wg.Wait()
	for i, flaw := range flaws {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for _, r := range reps[i].Results {
			switch {
			case flaw == "" && r.Outcome != outcomePass:
				t.Errorf("acp_bridge.py: %s: %s", r.ID, r.Reason)
			case flaw != "" && r.Outcome != outcomeFail:
				t.Errorf("acp_bridge.py with %s passed %s", flaw, r.ID)
			}
		}
	}
}
