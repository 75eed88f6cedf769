package statuspub

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentstatus/agentstatus/internal/agenthook"
)

// The hook adapters of agents that read a hook command's exit status:
// claude-hook, codex-hook and gemini-hook. Claude Code, Codex and Gemini
// CLI all take exit status 2 from a hook as "block this action" (a tool
// call, a prompt, a stop), so these commands never exit 2, not even for a
// usage error: every problem is one line on stderr and exit 0, or 1 with
// --strict (SPEC.md H7, H9).

// stdinHookCmd runs the adapter name, which reads the agent's payload from
// stdin and maps it with m.
func stdinHookCmd(name, agent string, m agenthook.Mapper, args []string, env Env) int {
	return neverBlock(name, args, env, func(env Env) int {
		return hookCmd(name, agent, args, env, func(fs *flag.FlagSet, strict bool) ([]byte, int) {
			if fs.NArg() > 0 {
				return nil, usageError(env, "%s: unexpected argument %q (the hook input is read from stdin)", name, fs.Arg(0))
			}
			if env.Stdin == nil {
				return nil, -1
			}
			data, err := io.ReadAll(io.LimitReader(env.Stdin, maxHookInput+1))
			if err == nil && len(data) > maxHookInput {
				err = fmt.Errorf("%w: more than %d bytes", ErrBadHookInput, maxHookInput)
			}
			if err != nil {
				return nil, failed(env, strict, name, err)
			}
			return data, -1
		}, adapt(m))
	})
}

func claudeHook(args []string, env Env) int {
	return stdinHookCmd("claude-hook", "claude-code", agenthook.Claude, args, env)
}

func codexHook(args []string, env Env) int {
	return stdinHookCmd("codex-hook", "codex", agenthook.Codex, args, env)
}

func geminiHook(args []string, env Env) int {
	return stdinHookCmd("gemini-hook", "gemini", agenthook.Gemini, args, env)
}

// neverBlock runs a hook command and turns a usage error (exit 2, which the
// agent would take as "block") into one line on stderr and exit 0, or 1
// with --strict. Help still prints the usage and exits 0.
func neverBlock(name string, args []string, env Env, run func(Env) int) int {
	var errBuf bytes.Buffer
	inner := env
	inner.Stderr = &errBuf
	code := run(inner)
	if code != ExitUsage {
		env.Stderr.Write(errBuf.Bytes())
		return code
	}
	msg, _, _ := strings.Cut(errBuf.String(), "\n")
	msg = strings.TrimPrefix(msg, "statuspub: ")
	msg = strings.TrimPrefix(msg, name+": ")
	return failed(env, strictGiven(args), name, fmt.Errorf("%s", msg))
}

// strictGiven reports whether args ask for --strict, for a command line
// that did not parse.
func strictGiven(args []string) bool {
	for _, a := range args {
		switch a {
		case "--strict", "-strict", "--strict=true", "-strict=true":
			return true
		case "--":
			return false
		}
	}
	return false
}
