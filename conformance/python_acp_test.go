package conformance

import (
	"context"
	"testing"
	"time"
)

// The Python bridge passes the ACP traces, and each of its flaws (a
// misreading of SPEC.md §13.5 an implementer could make) fails every
// trace. conformance/README.md lists them. A bridge that ignores
// session/cancel is not among them: Gemini CLI and OpenCode answer a
// cancelled prompt with stopReason cancelled themselves, so no real
// trace can tell.
var pythonACPFlaws = []string{"answer-keeps-blocked", "error-is-done", "bare-session-id", "close-keeps-records"}

func TestPythonACPBridge(t *testing.T) {
	skipShort(t, "starts the Python ACP bridge for every trace under every flaw; each failing trace waits out its 2 s deadline")
	t.Parallel()
	requireTool(t, "python3")
	run := func(flaw string) *Report {
		rep, err := RunACP(context.Background(), Options{Command: append(pythonFlawCommand(t, flaw, "acp_bridge.py"), "--"),
			TempDir: t.TempDir(), Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	for _, r := range run("").Results {
		if r.Outcome != outcomePass {
			t.Errorf("acp_bridge.py: %s: %s", r.ID, r.Reason)
		}
	}
	for _, flaw := range pythonACPFlaws {
		for _, r := range run(flaw).Results {
			if r.Outcome != outcomeFail {
				t.Errorf("acp_bridge.py with %s passed %s", flaw, r.ID)
			}
		}
	}
}
