//go:build !unix

package statusls

import (
	"io"
	"time"

	"github.com/agentstatus/agentstatus/reader"
)

// pruneGuard takes no locks here: hook commands need POSIX locks, and
// leftovers are not recognised.
type pruneGuard struct{}

func openPruneGuard(string, *reader.Dir) (*pruneGuard, error) { return &pruneGuard{}, nil }

func (g *pruneGuard) close() {}

func (g *pruneGuard) remove(d *reader.Dir, e *reader.Entry) (bool, string, error) {
	ok, err := d.Remove(e)
	return ok, "", err
}

func (g *pruneGuard) leftovers(io.Writer, time.Time, bool, func(error)) {}
