// Package testbin builds the toolkit's commands once per test binary, for
// tests that run them as subprocesses.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

var (
	once sync.Once
	dir  string
	err  error
)

// Build compiles every command under cmd/ into a temporary directory
// (once) and returns that directory. Call Cleanup from TestMain.
func Build() (string, error) {
	once.Do(func() {
		dir, err = os.MkdirTemp("", "agentstatus-bin-")
		if err != nil {
			return
		}
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/...")
		cmd.Dir = root
		cmd.Stderr = os.Stderr
		err = cmd.Run()
	})
	return dir, err
}

// Cleanup removes the built commands.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
