package testmain

import (
	"errors"
	"flag"
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

// MoreParallel raises -parallel when it was not given, and leaves a given
// one alone.
func TestMoreParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	old := f.Value.String()
	t.Cleanup(func() { f.Value.Set(old) })
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	MoreParallel(13)
	want := "13"
	if given {
		want = old
	}
	if got := f.Value.String(); got != want {
		t.Errorf("-parallel %s after MoreParallel(13), want %s (given: %v)", got, want, given)
	}
}
