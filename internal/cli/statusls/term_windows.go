package statusls

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// stopSignals end watch (exit 0); there is no resize signal on Windows.
var (
	stopSignals   = []os.Signal{os.Interrupt, syscall.SIGTERM}
	resizeSignals []os.Signal
)

// keyboard is not available here: watch quits on Ctrl-C only.
func keyboard(*os.File) (io.Reader, func(), error) { return nil, nil, errors.New("no keyboard") }
