//go:build windows

package statusls

import (
	"os"
	"syscall"
)

// stopSignals end watch (exit 0); there is no resize signal on Windows.
var (
	stopSignals   = []os.Signal{os.Interrupt, syscall.SIGTERM}
	resizeSignals []os.Signal
)
