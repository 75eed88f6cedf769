// Command statuspub publishes agent status files for programs that cannot
// embed package statusfile. See 'statuspub --help'.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	os.Exit(statuspub.Main(signals))
}
