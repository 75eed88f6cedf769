package statusls

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/agentstatus/agentstatus/internal/jqrun"
	"github.com/agentstatus/agentstatus/statusfile"
)

// Sanitizing object keys for --jq never lets a key take the place of one
// the file really has, and keys that sanitize alike give the same value at
// every run.
func TestJQInputKeys(t *testing.T) {
	v, ok := jqrun.DecodeObject([]byte(`{"state":"idle","\u001b[0mstate":"blocked","k\u0003":3,"k\u0001":1,"k\u0002":2}`))
	if !ok {
		t.Fatal("not read")
	}
	m := v.(map[string]any)
	for i := 0; i < 20; i++ { // map order varies from run to run
		again, _ := jqrun.DecodeObject([]byte(`{"k\u0002":2,"k\u0003":3,"k\u0001":1,"state":"idle","\u001b[0mstate":"blocked"}`))
		if again.(map[string]any)["k "] != m["k "] {
			t.Fatalf("colliding keys gave %v, then %v", m["k "], again.(map[string]any)["k "])
		}
	}
	if m["state"] != "idle" {
		t.Errorf(`.state = %v, want "idle": a key with an escape sequence took its place`, m["state"])
	}
	if m["k "] != 1 {
		t.Errorf(`.["k "] = %v, want 1 (the first raw key in byte order)`, m["k "])
	}
}

// --jq-files reads a file only when the filter asks for the next input:
// a file removed while the one before it is being filtered is never seen
// (reading every file first, as --jq once did, held 20,000 files of
// 64 KiB in memory at once).
func TestJQFilesReadOneAtATime(t *testing.T) {
	dir := privateDir(t)
	var names []string
	for _, s := range []string{"a", "b", "c"} {
		names = append(names, publish(t, dir, statusfile.Status{Agent: "pi", Session: s, State: "idle", UpdatedAt: now}))
	}
	slices.Sort(names)
	files, closeFiles, err := openFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles()
	var seen []string
	for name := range files {
		seen = append(seen, name)
		if len(seen) == 1 {
			if err := os.Remove(filepath.Join(dir, names[1])); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{names[0], names[2]}
	if !slices.Equal(seen, want) {
		t.Errorf("inputs %v, want %v: the second file was read before the first was filtered", seen, want)
	}
}

// The collector settings --jq-files runs with are restored afterwards, and
// GOGC and GOMEMLIMIT in the environment win.
func TestStreamingGCRestores(t *testing.T) {
	before := debug.SetGCPercent(123)
	defer debug.SetGCPercent(before)
	restore := tuneGC(func(string) string { return "" }, 100, 16<<20)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC while streaming: %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 16<<20 {
		t.Errorf("memory limit while streaming: %d, want 16 MiB", got)
	}
	restore()
	if got := debug.SetGCPercent(-1); got != 123 {
		t.Errorf("GOGC after: %d, want 123", got)
	}
	debug.SetGCPercent(123)
	restore = tuneGC(func(k string) string { return map[string]string{"GOGC": "50"}[k] }, 100, 16<<20)
	if got := debug.SetGCPercent(-1); got != 123 {
		t.Errorf("GOGC set in the environment was overridden: %d", got)
	}
	debug.SetGCPercent(123)
	restore()
}
