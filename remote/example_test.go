package remote_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/remote"
)

// List the fresh sessions of two hosts, as statusls --host devbox,gpu does.
func ExampleList() {
	cfg, err := remote.ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // connections are not shared, but it works
	}
	for _, r := range remote.List(context.Background(), &cfg, []string{"devbox", "gpu"}) {
		if r.Err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s (%s)\n", r.Err.Host, r.Err.Msg, r.Err.Hint)
			continue
		}
		for _, e := range r.Entries {
			if e.Verdict == reader.Fresh {
				fmt.Println(r.Host, e.Status.Session, e.Status.State, e.Status.Title)
			}
		}
	}
}

// Follow the sessions of two hosts, keeping a map per host as SPEC.md V4
// says; a host that goes away comes back with the difference.
func ExampleWatch() {
	cfg, _ := remote.ConfigFromEnv(os.Getenv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shown := map[string]map[string]*reader.Entry{} // host -> file name -> entry
	for ev := range remote.Watch(ctx, &cfg, []string{"devbox", "gpu"}) {
		switch ev.Kind {
		case "host-offline":
			fmt.Println(ev.Host, "offline:", ev.HostErr.Msg)
		case "host-online":
			fmt.Println(ev.Host, "back")
		default:
			if ev.Name == "" {
				continue
			}
			if shown[ev.Host] == nil {
				shown[ev.Host] = map[string]*reader.Entry{}
			}
			if ev.Live() {
				shown[ev.Host][ev.Name] = ev.After
			} else {
				delete(shown[ev.Host], ev.Name)
			}
		}
	}
}
