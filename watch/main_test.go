package watch

import (
	"testing"

	"github.com/agentstatus/agentstatus/internal/testmain"
	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine is left running after the
// tests: every Watcher must have stopped its own and fsnotify's.
func TestMain(m *testing.M) {
	testmain.Prepare()
	goleak.VerifyTestMain(m)
}
