package statusls

import (
	"fmt"

	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// jqHelper is the binary that runs --jq and --jq-files: statusls with the
// jq engine linked (cmd/statusls-jq).
const jqHelper = "statusls-jq"

// execJQHelper runs the helper with args and returns its exit status (see
// base.ExecHelper).
func execJQHelper(args []string, env *cmdEnv) int {
	path, err := base.FindHelper(jqHelper)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: --jq and --jq-files need %s, which is not installed next to statusls or in $PATH\n", jqHelper)
		fmt.Fprintf(env.Stderr, "statusls: hint: go install github.com/agentstatus/agentstatus/cmd/%s@latest\n", jqHelper)
		return base.ExitError
	}
	environ := append(env.Environ(), helperEnv+"=1")
	code, err := base.ExecHelper(base.Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr}, path, args, environ)
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: %s: %v\n", jqHelper, err)
	}
	return code
}
