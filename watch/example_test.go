package watch_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/statusfile"
	"github.com/agentstatus/agentstatus/watch"
)

func ExampleNew() {
	home, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "agent-status") // need not exist yet

	w, err := watch.New(dir, watch.Options{})
	if err != nil {
		panic(err)
	}
	defer w.Close()

	show := func() {
		ev := <-w.Events()
		fmt.Print(ev.Kind)
		if ev.After != nil {
			fmt.Printf(" %s %s %s", ev.Session, ev.After.Status.State, ev.After.Verdict)
		}
		fmt.Println()
	}
	show() // the snapshot ends, empty

	rec := statusfile.Status{Agent: "pi", Session: "s-1", Cwd: "/work", State: statusfile.Working}
	if _, err := statusfile.WriteFile(dir, rec); err != nil {
		panic(err)
	}
	show()
	rec.State = statusfile.Blocked
	if _, err := statusfile.WriteFile(dir, rec); err != nil {
		panic(err)
	}
	show()
	if err := statusfile.RemoveFile(dir, "s-1"); err != nil {
		panic(err)
	}
	show()
	// Output:
	// synced
	// added s-1 working fresh
	// updated s-1 blocked fresh
	// removed
}
