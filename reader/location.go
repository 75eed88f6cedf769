package reader

import (
	"errors"
	"fmt"

	"github.com/agentstatus/agentstatus/internal/location"
)

// DefaultDir returns the status directory a reader lists when told nothing
// else (SPEC.md L1–L4): $STATUS_DIR when it is set and non-empty, else
// <config home>/agent-status, the config home being $GENTLE_PI_CONFIG_HOME
// when it is set and non-empty, else ~/.pi/gentle-ai: where a
// [statusfile.Publisher] told nothing writes. The path is absolute. It is the
// directory statusls lists without --dir or --config-home; pass it to
// [List], [Open] or watch.New instead of reading the environment yourself.
func DefaultDir() (string, error) {
	loc, err := location.ForReader("", "", nil)
	if errors.Is(err, location.ErrNoHome) {
		return "", errors.New("cannot find the status directory: " + location.StatusDirEnv + " and " + location.ConfigHomeEnv + " are not set and the home directory is unknown")
	}
	if err != nil {
		return "", fmt.Errorf("status directory: %w", err)
	}
	return loc.Dir, nil
}
