package statuspub

import (
	"os"
	"testing"
	"time"
)

// tempDir is t.TempDir for tests whose writers outlive them: writes left
// blocked, or a hook owner that is mid-heartbeat when the test kills its
// agent and removes its record a moment after the test ends. Removal is
// retried for a while instead of failing on an entry that appeared under it.
func tempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "statuspub-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if os.RemoveAll(dir) == nil || time.Now().After(deadline) {
				return
			}
		}
	})
	return dir
}

// TempDir is tempDir for the package's external tests.
var TempDir = tempDir
