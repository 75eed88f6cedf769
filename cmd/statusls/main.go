// Command statusls lists the agent sessions of a gentle-shell.agent-status/v1
// status directory. See 'statusls --help'.
package main

import (
	"os"

	"github.com/agentstatus/agentstatus/internal/cli/statusls"
)

func main() { os.Exit(statusls.Main()) }
