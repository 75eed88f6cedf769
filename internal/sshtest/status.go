package sshtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

// StatusDir makes a config home (0700) named name in a temporary directory
// and returns its status directory, for a host's SetEnv STATUS_DIR.
func StatusDir(t *testing.T, name string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(home, location.DirName), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, location.DirName)
}

// Publish writes a record of session into dir that is fresh on the real
// clock, with this process's pid: the hosts' statusls judge freshness and
// liveness on this machine's clock and processes.
func Publish(t *testing.T, dir, session, state, title string) {
	t.Helper()
	if _, err := statusfile.WriteFile(dir, statusfile.Status{Schema: statusfile.Schema, Agent: "test", Session: session, PID: os.Getpid(), Cwd: "/src", State: statusfile.State(state), Title: title}); err != nil {
		t.Fatal(err)
	}
}
