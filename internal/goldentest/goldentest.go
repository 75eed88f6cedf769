// Package goldentest compares what a test produced with a golden file
// under testdata/, and rewrites the file instead when the test binary runs
// with -update:
//
//	go test ./internal/promtext -run TestAppendGolden -update
//
// A package whose tests import it gets the -update flag from it, and must
// not define a flag of that name itself (the flag package panics on a
// second definition).
package goldentest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with what the tests produce")

// Check fails t when got differs from the file at path, showing both; with
// -update it writes got to path (making its directory) and checks nothing.
// A missing file fails t with the command that creates it.
func Check[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test -run %s -update' to create it)", err, t.Name())
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run 'go test -run %s -update' to accept):\n--- got ---\n%s\n--- want ---\n%s", path, t.Name(), got, want)
	}
}
