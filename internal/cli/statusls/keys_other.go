//go:build !unix

package statusls

import (
	"errors"
	"io"
	"os"
)

var errNoKeyboard = errors.New("no keyboard")

// keyboard is not available here: watch quits on Ctrl-C only.
func keyboard(*os.File) (io.Reader, func(), error) { return nil, nil, errNoKeyboard }
