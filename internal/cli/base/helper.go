package base

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
)

// A helper is a command with a dependency linked that most of its runs
// must not pay for at start-up: statusls-jq (gojq) and statuspub-install
// (the TOML parser). The command re-executes its helper for the runs that
// need it.

// FindHelper returns the path of the helper program name: next to the
// running executable (symbolic links followed), else in $PATH.
func FindHelper(name string) (string, error) {
	file := name
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if self, err := filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), file)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return exec.LookPath(name)
}

// ExecHelper runs the helper at path with args (without the program name)
// and environ, and returns its exit status. When env's streams are the
// process's own it replaces the process where the system can (Unix), so
// that the helper's exit status, signals and streams are the command's
// own; else (Windows has no exec, and says so) it runs the helper as a
// child with env's streams. The error is one of starting it.
func ExecHelper(env Env, path string, args, environ []string) (int, error) {
	if env.Stdin == os.Stdin && env.Stdout == os.Stdout && env.Stderr == os.Stderr {
		syscall.Exec(path, append([]string{path}, args...), environ) // returns only on failure
	}
	cmd := exec.Command(path, args...)
	cmd.Env = environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return ExitError, err
	}
	return ExitOK, nil
}
