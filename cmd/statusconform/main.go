// Command statusconform runs the conformance suite of the
// gentle-shell.agent-status/v1 protocol against a reader or a publisher.
// See 'statusconform --help'.
package main

import (
	"os"

	"github.com/agentstatus/agentstatus/internal/cli/statusconform"
)

func main() { os.Exit(statusconform.Main()) }
