package statusfile

import (
	"errors"
	"fmt"

	"github.com/agentstatus/agentstatus/internal/location"
)

// defaultConfigHome returns the config home a publisher uses when told
// nothing else (SPEC.md L1): $GENTLE_PI_CONFIG_HOME when it is set and
// non-empty, else ~/.pi/gentle-ai, where ~ is $HOME when it is set (as
// statusls takes it, also on Windows), else the user's home directory. The
// path is absolute. It is what statuspub and statusls use without flags.
func defaultConfigHome() (string, error) {
	loc, err := location.ForPublisher("", "", nil)
	if errors.Is(err, location.ErrNoHome) {
		return "", errors.New("cannot find the config home: " + location.ConfigHomeEnv + " is not set and the home directory is unknown")
	}
	if err != nil {
		return "", fmt.Errorf("config home: %w", err)
	}
	return loc.ConfigHome, nil
}
