package statusfile

import (
	"errors"
	"fmt"

	"github.com/agentstatus/agentstatus/internal/location"
)

// publisherLocation returns the status directory and config home of a
// publisher (SPEC.md L1): dir, made absolute, with its parent; else the
// config home home; else $GENTLE_PI_CONFIG_HOME when it is set and
// non-empty, else ~/.pi/gentle-ai, where ~ is $HOME when it is set (as
// statusls takes it, also on Windows), else the user's home directory. The
// paths are absolute.
func publisherLocation(dir, home string) (location.Location, error) {
	loc, err := location.ForPublisher(dir, home, nil)
	if errors.Is(err, location.ErrNoHome) {
		return loc, errors.New("cannot find the config home: " + location.ConfigHomeEnv + " is not set and the home directory is unknown")
	}
	if err != nil {
		return loc, fmt.Errorf("config home: %w", err)
	}
	return loc, nil
}
