// Command statusls-jq is statusls with the jq engine (gojq) linked: statusls
// re-executes it for --jq and --jq-files, so that no other run of statusls
// pays gojq's start-up cost. Install it next to statusls.
package main

import (
	"os"

	"github.com/agentstatus/agentstatus/internal/cli/statusls"
	_ "github.com/agentstatus/agentstatus/internal/jqrun/gojqrun"
)

func main() { os.Exit(statusls.Main()) }
