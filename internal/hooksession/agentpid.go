package hooksession

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

// maxShellHops bounds the walk up the process tree.
const maxShellHops = 8

// isShell reports whether comm names a shell, one of the programs the
// agent-pid search walks past: a hook is usually run as `sh -c 'command'`,
// and the shell (unless it execs its last command, as bash does and dash
// does not) is the hook program's parent, living only as long as the hook.
// A switch, not a map: a map literal is built at every start of the
// program, which every agent runs on every hook event.
func isShell(comm string) bool {
	switch strings.TrimPrefix(filepath.Base(comm), "-") { // "-bash" for a login shell
	case "sh", "bash", "dash", "zsh", "ksh", "ksh93",
		"mksh", "pdksh", "oksh", "ash", "busybox", "yash",
		"posh", "fish", "csh", "tcsh":
		return true
	}
	return false
}

// agentPID finds the agent's process for a hook whose parent is parent:
// starting at parent, it walks up past shells to the first process that is
// not one. It stops at a shell whose parent is init (pid 1) or unknown, so
// it never returns 1 or 0 for a live parent, and gives up after
// maxShellHops shells. lookup returns what the platform knows of a process;
// where it knows nothing, the parent itself is returned. A hook whose
// parent is init (or unknown) was orphaned: its agent has exited, and the
// result is 0, no agent (SPEC.md H6: never init).
func agentPID(parent int, lookup func(pid int) (procfs.Stat, error)) int {
	if parent <= 1 {
		return 0
	}
	pid := parent
	for range maxShellHops {
		info, err := lookup(pid)
		if err != nil || !isShell(info.Comm) || info.PPID <= 1 {
			return pid
		}
		pid = info.PPID
	}
	return pid
}

// AgentPID is [agentPID] for the current process.
func AgentPID() int {
	return agentPID(os.Getppid(), lookupProc)
}
