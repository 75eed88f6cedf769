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

// helperExe returns the program that runs the suite's test reader,
// publisher and hook adapter: this test binary, built without -race when
// it has the race runtime (testbin.Helper).
func helperExe(t testing.TB) string {
	t.Helper()
	exe, err := testbin.Helper()
	if err != nil {
		t.Fatalf("building the helpers: %v", err)
	}
	return exe
}
