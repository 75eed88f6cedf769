//go:build !unix && !windows

package statusls

import "os"

var (
	stopSignals   = []os.Signal{os.Interrupt}
	resizeSignals []os.Signal
)
