package testmain

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Run(m) }

// TestRestarted checks that Run restarted this binary with the sleep off
// when it is built with -race (the README's test command builds it so).
func TestRestarted(t *testing.T) {
	g := os.Getenv("GORACE")
	if !RaceEnabled {
		if strings.Contains(g, "atexit_sleep_ms=0") {
			t.Logf("GORACE=%q came from the environment", g)
		}
		t.Skip("not built with -race: nothing to restart")
	}
	if errors.Is(restartErr, errors.ErrUnsupported) {
		t.Skip(restartErr)
	}
	if restartErr != nil {
		t.Errorf("the binary was not restarted with atexit_sleep_ms=0: %v", restartErr)
	}
	if !strings.Contains(g, "atexit_sleep_ms") {
		t.Errorf("GORACE=%q: the binary was not restarted with atexit_sleep_ms=0", g)
	}
}
