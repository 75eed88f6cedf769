// Package location finds the status directory as SPEC.md §2 says, and
// remembers why it chose it, so that statusls doctor can explain. It is
// the one implementation of the lookup: a [statusfile.Publisher]'s default
// directory and [reader.DefaultDir] are this package's answers for library
// users, and the commands add their --dir and --config-home flags.
package location

import (
	"errors"
	"os"
	"path/filepath"
)

// The names SPEC.md §2 gives.
const (
	// ConfigHomeEnv overrides the config home (L1).
	ConfigHomeEnv = "GENTLE_PI_CONFIG_HOME"
	// StatusDirEnv names the status directory itself, for readers only
	// (L3, L4).
	StatusDirEnv = "STATUS_DIR"
	// DirName is the status directory's name inside the config home (L2).
	DirName = "agent-status"
)

// Where the directory came from.
const (
	FromDirFlag    = "--dir"
	FromHomeFlag   = "--config-home"
	FromStatusDir  = "$" + StatusDirEnv
	FromConfigHome = "$" + ConfigHomeEnv
	FromDefault    = "default (~/.pi/gentle-ai)"
)

// ErrNoHome is returned when neither a flag nor the environment names the
// directory and the user's home directory is unknown.
var ErrNoHome = errors.New("cannot find the status directory: HOME is not set; use --dir or --config-home")

// Location is a resolved status directory.
type Location struct {
	Dir        string // the status directory, absolute
	ConfigHome string // its parent, absolute
	Source     string // one of the From constants
}

// Getenv reads an environment variable; os.Getenv in production.
type Getenv func(string) string

// ForReader resolves the directory a reader lists: --dir, --config-home,
// $STATUS_DIR, $GENTLE_PI_CONFIG_HOME, then the default.
func ForReader(dirFlag, homeFlag string, getenv Getenv) (Location, error) {
	return resolve(dirFlag, homeFlag, getenv, true)
}

// ForPublisher resolves the directory a publisher writes: as ForReader,
// but $STATUS_DIR is not consulted (SPEC.md L4).
func ForPublisher(dirFlag, homeFlag string, getenv Getenv) (Location, error) {
	return resolve(dirFlag, homeFlag, getenv, false)
}

// StatusDir returns the status directory of a config home (L2).
func StatusDir(configHome string) string { return filepath.Join(configHome, DirName) }

func resolve(dirFlag, homeFlag string, getenv Getenv, reader bool) (Location, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case dirFlag != "":
		return fromDir(dirFlag, FromDirFlag)
	case homeFlag != "":
		return fromHome(homeFlag, FromHomeFlag)
	case reader && getenv(StatusDirEnv) != "":
		return fromDir(getenv(StatusDirEnv), FromStatusDir)
	case getenv(ConfigHomeEnv) != "":
		return fromHome(getenv(ConfigHomeEnv), FromConfigHome)
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return Location{}, ErrNoHome
		}
		home = h
	}
	return fromHome(filepath.Join(home, ".pi", "gentle-ai"), FromDefault)
}

func fromDir(dir, source string) (Location, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, err
	}
	return Location{Dir: abs, ConfigHome: filepath.Dir(abs), Source: source}, nil
}

func fromHome(home, source string) (Location, error) {
	abs, err := filepath.Abs(home)
	if err != nil {
		return Location{}, err
	}
	return Location{Dir: StatusDir(abs), ConfigHome: abs, Source: source}, nil
}
