package statuspub

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/agentstatus/agentstatus/internal/agenthook"
)

// The hook adapters of agents that run a command per event and read the
// payload from its stdin: claude-hook, codex-hook, gemini-hook,
// copilot-hook and qwen-hook. Claude Code, Codex, Gemini CLI and Qwen Code
// take exit status 2 from a hook as "block this action" (a tool call, a
// prompt, a stop), Copilot CLI from preToolUse and permissionRequest as
// "deny", so their commands are base.Command with Hook set: every problem,
// a usage error included, is one line on stderr and exit 0, or 1 with
// --strict (SPEC.md H7, H9).

// maxHookInput bounds the hook input read from stdin. PostToolUse payloads
// carry the tool's whole response, which can be large.
const maxHookInput = 64 << 20

// sourceFunc names the file an agent keeps its own state in, from the
// environment, the agent's pid and the action (SPEC.md §13.3).
type sourceFunc func(env *runner, pid int, a agenthook.Action) *agenthook.Source

// stdinPayload reads the payload that the agent (named in messages as
// agentName) writes to stdin.
func stdinPayload(agentName string) payloadFunc {
	return func(env *runner, args []string) ([]byte, error) {
		if len(args) > 0 {
			return nil, fmt.Errorf("unexpected argument %q (the hook input is read from stdin)", args[0])
		}
		if env.Stdin == nil {
			return nil, errors.New("stdin is empty")
		}
		data, err := readPayload(env)
		switch {
		case err != nil:
			return nil, err
		case len(bytes.TrimSpace(data)) == 0:
			return nil, fmt.Errorf("stdin is empty (%s sends the hook input there)", agentName)
		case len(data) > maxHookInput:
			return nil, fmt.Errorf("%w: longer than %d bytes", agenthook.ErrBadInput, maxHookInput)
		}
		return data, nil
	}
}

// notifyPayload is Codex's notify JSON, its last argument.
func notifyPayload(_ *runner, args []string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("no notification (Codex passes it as the last argument)")
	}
	return []byte(args[len(args)-1]), nil
}

// readPayload reads stdin, unless a signal comes first: an agent that
// started the hook and never closes its stdin (or a hook run by hand on a
// pipe that stays open) must still be able to stop it (SPEC.md H11). The
// read goes on in the background; the process is about to exit.
func readPayload(env *runner) ([]byte, error) {
	return beforeSignal(env, " before the hook input was read from stdin: nothing was applied", func() ([]byte, error) {
		data, err := io.ReadAll(io.LimitReader(env.Stdin, maxHookInput+1))
		if err != nil {
			err = fmt.Errorf("reading stdin: %w", err)
		}
		return data, err
	})
}

// claudeSource is Claude Code's session file for the agent process pid:
// sessions/<pid>.json in its configuration directory, $CLAUDE_CONFIG_DIR
// else ~/.claude. The hook runs with the agent's environment.
func claudeSource(env *runner, pid int, _ agenthook.Action) *agenthook.Source {
	dir := agentHome(env, "CLAUDE_CONFIG_DIR", ".claude")
	if !filepath.IsAbs(dir) {
		return nil
	}
	return &agenthook.Source{Kind: agenthook.SourceClaudeSession, Path: filepath.Join(dir, "sessions", strconv.Itoa(pid)+".json")}
}

// codexSource is Codex's rollout file, the payload's transcript_path, when
// it lies where Codex keeps them ($CODEX_HOME, else ~/.codex, sessions/)
// and is named for the session.
func codexSource(env *runner, _ int, a agenthook.Action) *agenthook.Source {
	if a.Source == nil {
		return nil
	}
	if path, ok := agenthook.CodexRolloutPath(agentHome(env, "CODEX_HOME", ".codex"), a.Source.Path, a.Session); ok {
		return &agenthook.Source{Kind: agenthook.SourceCodexRollout, Path: path}
	}
	return nil
}

// geminiSource is Gemini CLI's chat recording, the payload's
// transcript_path, when it lies where Gemini CLI keeps them
// (~/.gemini/tmp/) and is named for the session.
func geminiSource(env *runner, _ int, a agenthook.Action) *agenthook.Source {
	if a.Source == nil {
		return nil
	}
	if path, ok := agenthook.GeminiChatPath(env.Getenv("HOME"), a.Source.Path, a.Session); ok {
		return &agenthook.Source{Kind: agenthook.SourceGeminiChat, Path: path}
	}
	return nil
}

// copilotSource is Copilot CLI's session log, which says what its hooks
// do not (an approval, a denial, Esc Esc): session-state/<id>/events.jsonl
// in $COPILOT_HOME, else ~/.copilot. The hook runs with the agent's
// environment.
func copilotSource(env *runner, _ int, a agenthook.Action) *agenthook.Source {
	if path, ok := agenthook.CopilotEventsPath(agentHome(env, "COPILOT_HOME", ".copilot"), a.Session); ok {
		return &agenthook.Source{Kind: agenthook.SourceCopilotEvents, Path: path}
	}
	return nil
}

// agentHome is an agent's own directory: $variable, else dir in $HOME, else
// "".
func agentHome(env *runner, variable, dir string) string {
	if d := env.Getenv(variable); d != "" {
		return d
	}
	if h := env.Getenv("HOME"); h != "" {
		return filepath.Join(h, dir)
	}
	return ""
}

// qwenSource is the directory in which Qwen Code keeps the session's
// background shells, which no hook counts: tmp/<hash of the payload's
// cwd>/background-shells/<session id> in its runtime directory,
// $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen. The hook runs with the
// agent's environment.
func qwenSource(env *runner, _ int, a agenthook.Action) *agenthook.Source {
	runtime := env.Getenv("QWEN_RUNTIME_DIR")
	if runtime == "" {
		runtime = agentHome(env, "QWEN_HOME", ".qwen")
	}
	if path, ok := agenthook.QwenShellsPath(runtime, a.Cwd, a.Session); ok {
		return &agenthook.Source{Kind: agenthook.SourceQwenShells, Path: path}
	}
	return nil
}
