package agenthook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
)

// Qwen Code 0.24.4 runs a background shell (run_shell_command with
// is_background) outside the turn: the turn ends at once, its Stop lists
// background agents but no shells, and no hook comes when the shell ends,
// though its end starts a turn of Qwen Code's own (which runs only Stop).
// It keeps each shell's state beside its output, in the session's
// directory
//
//	<runtime dir>/tmp/<project hash>/background-shells/<session id>/shell-<id>.status
//
// (packages/core/src/services/backgroundShellRegistry.ts writeStatusFile;
// the runtime dir is $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen;
// the project hash is the SHA-256 of the project root, in hex), rewritten
// whole (a temporary file renamed over it) when the shell starts and when
// it ends:
//
//	{
//	  "id": "bg_33f5c2f1",
//	  "status": "running",
//	  "command": "timeout 8 tail -f /dev/null",
//	  "cwd": "…",
//	  "startTime": "2026-12-03T19:45:01.403Z",
//	  "updatedAt": "2026-12-03T19:45:01.428Z",
//	  "pid": 17967
//	}
//
// then "completed" (with endTime and exitCode), "failed" (with endTime and
// error: "exited with code 124") or "cancelled" (testdata/qwen-shells/).
// The directory is made with the session's first background shell, and
// the files stay after the shell ends (the last 32 that ended).

// QwenShellsPath is the directory where Qwen Code keeps the background
// shells of session, started in the project root cwd (the hooks' cwd),
// under its runtime directory runtimeDir. ok is false when runtimeDir or
// cwd is not absolute, or the session id is not one clean path element.
func QwenShellsPath(runtimeDir, cwd, session string) (string, bool) {
	if !filepath.IsAbs(runtimeDir) || !filepath.IsAbs(cwd) || session == "" || session == "." || session == ".." ||
		strings.ContainsAny(session, `/\`) {
		return "", false
	}
	// Qwen Code hashes the root as Node's path.resolve leaves it: clean.
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return filepath.Join(filepath.Clean(runtimeDir), "tmp", hex.EncodeToString(sum[:]), "background-shells", session), true
}

// QwenShellName reports whether name, in the session's directory, is a
// shell's status file: shell-<id>.status (not its .output, nor the
// temporary file a write renames).
func QwenShellName(name string) bool {
	id, ok := strings.CutPrefix(name, "shell-")
	if !ok {
		return false
	}
	id, ok = strings.CutSuffix(id, ".status")
	return ok && id != "" && !strings.ContainsAny(id, "./")
}

// QwenShellStatus reads one shell's status file. running reports that the
// shell runs, pid its process (0: not said); ok is false for a file that
// says nothing usable: not a JSON object, a status this adapter does
// not know, or a pid no process can have.
func QwenShellStatus(data []byte) (running bool, pid int, ok bool) {
	var f struct {
		Status string `json:"status"`
		PID    int    `json:"pid"`
	}
	if json.Unmarshal(data, &f) != nil {
		return false, 0, false
	}
	if f.PID < 0 || f.PID > math.MaxInt32 {
		// No process has it: kill(2) would take a negative pid for a
		// process group, and cut a larger one to another process's.
		return false, 0, false
	}
	switch f.Status {
	case "running":
		return true, f.PID, true
	case "completed", "failed", "cancelled":
		return false, f.PID, true
	}
	return false, 0, false
}
