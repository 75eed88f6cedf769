package conformance

import (
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testbin"
)

// toolkitCommand returns the path of one of the toolkit's commands, built
// once per test binary.
func toolkitCommand(t testing.TB, name string) string {
	t.Helper()
	dir, err := testbin.Build()
	if err != nil {
		t.Fatalf("building the commands: %v", err)
	}
	return filepath.Join(dir, name)
}

func cleanupBinaries() { testbin.Cleanup() }
