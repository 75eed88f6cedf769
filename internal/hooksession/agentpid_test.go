package hooksession

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

func TestAgentPID(t *testing.T) {
	// A process table: pid -> info.
	type table map[int]procfs.Stat
	lookup := func(tab table) func(int) (procfs.Stat, error) {
		return func(pid int) (procfs.Stat, error) {
			if info, ok := tab[pid]; ok {
				return info, nil
			}
			return procfs.Stat{}, fs.ErrNotExist
		}
	}
	tests := []struct {
		name   string
		tab    table
		parent int
		want   int
	}{
		{"hook run by sh -c (dash keeps the shell)", table{
			300: {PPID: 200, Comm: "sh"}, 200: {PPID: 100, Comm: "claude"}, 100: {PPID: 1, Comm: "bash"}}, 300, 200},
		{"hook run directly (bash execs, or exec form)", table{
			200: {PPID: 100, Comm: "2.1.128"}, 100: {PPID: 1, Comm: "zsh"}}, 200, 200},
		{"hook script under bash under sh", table{
			400: {PPID: 300, Comm: "bash"}, 300: {PPID: 200, Comm: "sh"}, 200: {PPID: 1, Comm: "node"}}, 400, 200},
		{"login shell name", table{
			300: {PPID: 200, Comm: "-zsh"}, 200: {PPID: 1, Comm: "tmux: server"}}, 300, 200},
		{"a shell whose parent is init stays", table{
			300: {PPID: 1, Comm: "sh"}}, 300, 300},
		{"unknown parent", table{}, 300, 300},
		{"orphaned: the parent is init", table{1: {PPID: 0, Comm: "init"}}, 1, 0},
		{"a shell whose parent vanished", table{
			300: {PPID: 200, Comm: "sh"}}, 300, 200},
		{"shell loop bounded", func() table {
			tab := table{}
			for pid := 2; pid < 100; pid++ {
				tab[pid] = procfs.Stat{PPID: pid + 1, Comm: "sh"}
			}
			return tab
		}(), 2, 2 + maxShellHops},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := agentPID(tt.parent, lookup(tt.tab)); got != tt.want {
				t.Errorf("agentPID(%d) = %d, want %d", tt.parent, got, tt.want)
			}
		})
	}
	unsupported := func(int) (procfs.Stat, error) { return procfs.Stat{}, errors.ErrUnsupported }
	if got := agentPID(42, unsupported); got != 42 {
		t.Errorf("without process information: %d, want the parent 42", got)
	}
}

func TestIsShell(t *testing.T) {
	for comm, want := range map[string]bool{
		"sh": true, "bash": true, "dash": true, "zsh": true, "-bash": true, "/bin/sh": true, "fish": true,
		"claude": false, "node": false, "2.1.128": false, "codex": false, "shellcheck": false, "": false,
	} {
		if got := isShell(comm); got != want {
			t.Errorf("isShell(%q) = %v", comm, got)
		}
	}
}
