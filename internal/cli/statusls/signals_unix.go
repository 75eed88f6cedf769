//go:build unix

package statusls

import (
	"os"
	"syscall"
)

// stopSignals end watch (exit 0); resizeSignals make it fit its table to
// the terminal again.
var (
	stopSignals   = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	resizeSignals = []os.Signal{syscall.SIGWINCH}
)
