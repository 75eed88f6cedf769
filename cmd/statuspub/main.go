// Command statuspub publishes agent status files for programs that cannot
// embed package statusfile. See 'statuspub --help'.
package main

import (
	"os"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
)

func main() { os.Exit(statuspub.Main()) }
