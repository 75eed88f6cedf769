package reader_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

func ExampleList() {
	home, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "agent-status")
	now := time.Now()
	for i, st := range []statusfile.State{statusfile.Working, statusfile.Blocked} {
		statusfile.WriteFile(dir, statusfile.Status{
			Agent: "demo", Session: fmt.Sprint("session-", i), Cwd: "/w", State: st,
			UpdatedAt: now.Add(-time.Duration(i) * time.Minute), // the second one is stale
		})
	}

	l, err := reader.List(dir, reader.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range l.Entries {
		fmt.Println(e.Status.Session, e.Status.State, e.Verdict)
	}
	// Output:
	// session-0 working fresh
	// session-1 blocked stale
}
