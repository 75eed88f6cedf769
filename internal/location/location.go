// Package location finds the status directory as SPEC.md §2 says, and
// remembers why it chose it, so that statusls doctor can explain.
package location

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Where the directory came from.
const (
	FromDirFlag    = "--dir"
	FromHomeFlag   = "--config-home"
	FromStatusDir  = "$" + statusfile.StatusDirEnv
	FromConfigHome = "$" + statusfile.ConfigHomeEnv
	FromDefault    = "default (~/.pi/gentle-ai)"
)

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

func resolve(dirFlag, homeFlag string, getenv Getenv, reader bool) (Location, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case dirFlag != "":
		return fromDir(dirFlag, FromDirFlag)
	case homeFlag != "":
		return fromHome(homeFlag, FromHomeFlag)
	case reader && getenv(statusfile.StatusDirEnv) != "":
		return fromDir(getenv(statusfile.StatusDirEnv), FromStatusDir)
	case getenv(statusfile.ConfigHomeEnv) != "":
		return fromHome(getenv(statusfile.ConfigHomeEnv), FromConfigHome)
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return Location{}, errors.New("cannot find the status directory: HOME is not set; use --dir or --config-home")
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
	return Location{Dir: statusfile.StatusDir(abs), ConfigHome: abs, Source: source}, nil
}
