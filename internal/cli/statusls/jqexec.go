package statusls

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// jqHelper is the binary that runs --jq and --jq-files: statusls with the
// jq engine linked (cmd/statusls-jq).
const jqHelper = "statusls-jq"

// findJQHelper looks for the helper next to the running executable, then
// in $PATH.
func findJQHelper() (string, error) {
	name := jqHelper
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if self, err := filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return exec.LookPath(jqHelper)
}

// execJQHelper runs the helper with args and returns its exit status. Where
// it can, it replaces this process (see execSelf); else it runs it as a
// child with the same streams.
func execJQHelper(args []string, env *Env) int {
	path, err := findJQHelper()
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: --jq and --jq-files need %s, which is not installed next to statusls or in $PATH\n", jqHelper)
		fmt.Fprintf(env.Stderr, "statusls: hint: go install github.com/agentstatus/agentstatus/cmd/%s@latest\n", jqHelper)
		return ExitError
	}
	environ := append(env.Environ(), helperEnv+"=1")
	if env.Stdin == os.Stdin && env.Stdout == os.Stdout && env.Stderr == os.Stderr {
		execSelf(path, append([]string{path}, args...), environ) // returns only on failure
	}
	cmd := exec.Command(path, args...)
	cmd.Env = environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s: %v\n", jqHelper, err)
		return ExitError
	}
	return ExitOK
}
