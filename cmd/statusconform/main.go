// Command statusconform runs the conformance suite of the
// gentle-shell.agent-status/v1 protocol against a reader or a publisher.
// See 'statusconform --help'.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentstatus/agentstatus/internal/cli/statusconform"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels the run; a second one, with the default
	// handling restored, ends the program at once.
	context.AfterFunc(ctx, stop)
	code := statusconform.Main(ctx)
	stop()
	os.Exit(code)
}
