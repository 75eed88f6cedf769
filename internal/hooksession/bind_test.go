package hooksession

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/agentstatus/agentstatus/internal/procfs"
)

func TestBindAgent(t *testing.T) {
	// A process table: pid -> stat, and each pid's executable.
	type proc struct {
		ppid  int
		start uint64
		exe   string
		state byte // 'Z' for a zombie
	}
	const node, other = "/usr/bin/node", "/usr/bin/other"
	host := func(tab map[int]proc) procs {
		return procs{
			stat: func(pid int) (procfs.Stat, error) {
				p, ok := tab[pid]
				if !ok {
					return procfs.Stat{}, fs.ErrNotExist
				}
				return procfs.Stat{PID: pid, PPID: p.ppid, Start: p.start, Zombie: p.state == 'Z'}, nil
			},
			exe: func(pid int) (string, error) {
				if p, ok := tab[pid]; ok && p.exe != "" {
					return p.exe, nil
				}
				return "", fs.ErrPermission
			},
			exists: func(pid int) bool { _, ok := tab[pid]; return ok },
		}
	}
	// The agent 100 (a child of the terminal's shell 50), its helper 300
	// (same executable, started later) and the helper's shell 310.
	base := map[int]proc{
		50:  {ppid: 1, start: 10, exe: "/usr/bin/bash"},
		100: {ppid: 50, start: 20, exe: node},
		300: {ppid: 100, start: 90, exe: node},
		310: {ppid: 300, start: 91, exe: "/usr/bin/bash"},
	}
	with := func(add map[int]proc, drop ...int) map[int]proc {
		tab := map[int]proc{}
		for pid, p := range base {
			tab[pid] = p
		}
		for pid, p := range add {
			tab[pid] = p
		}
		for _, pid := range drop {
			delete(tab, pid)
		}
		return tab
	}
	tests := []struct {
		name       string
		tab        map[int]proc
		found      int
		bound      int
		boundStart uint64
		want       int
	}{
		{"no record yet", base, 300, 0, 0, 300},
		{"the same process", base, 100, 100, 20, 100},
		{"a helper of the bound agent", base, 300, 100, 20, 100},
		{"a helper further down", with(map[int]proc{320: {ppid: 310, start: 92, exe: node}}), 320, 100, 20, 100},
		{"a helper that has exited", with(nil, 300), 300, 100, 20, 100},
		{"a helper that is a zombie", with(map[int]proc{300: {ppid: 100, start: 90, exe: node, state: 'Z'}}), 300, 100, 20, 100},
		{"an orphaned hook (none found)", base, 0, 100, 20, 100},
		{"bound to a helper, the agent's hook", base, 100, 300, 90, 100},
		{"the bound agent exited: a new one", with(map[int]proc{400: {ppid: 50, start: 95, exe: node}}, 100, 300, 310), 400, 100, 20, 400},
		{"the bound agent a zombie", with(map[int]proc{100: {ppid: 50, start: 20, exe: node, state: 'Z'}, 400: {ppid: 50, start: 95, exe: node}}), 400, 100, 20, 400},
		{"the bound pid reused", with(map[int]proc{100: {ppid: 50, start: 93, exe: other}, 400: {ppid: 50, start: 95, exe: node}}), 400, 100, 20, 400},
		{"resumed in a second process of the agent", with(map[int]proc{400: {ppid: 50, start: 95, exe: node}}), 400, 100, 20, 400},
		{"an unrelated process of another program", with(map[int]proc{400: {ppid: 50, start: 95, exe: other}}), 400, 100, 20, 100},
		{"an unrelated process started before the agent", with(map[int]proc{400: {ppid: 50, start: 15, exe: node}}), 400, 100, 20, 100},
		{"an orphaned helper of the agent's", with(map[int]proc{300: {ppid: 1, start: 90, exe: node}}), 300, 100, 20, 100},
		{"executables unknown (not ours)", with(map[int]proc{400: {ppid: 50, start: 95}}), 400, 100, 20, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bindAgent(tt.found, tt.bound, tt.boundStart, host(tt.tab)); got != tt.want {
				t.Errorf("bindAgent(found %d, bound %d) = %d, want %d", tt.found, tt.bound, got, tt.want)
			}
		})
	}
	// A platform that knows nothing of processes keeps the bound pid
	// while it exists, and takes the new one when it does not.
	blind := procs{
		stat:   func(int) (procfs.Stat, error) { return procfs.Stat{}, errors.ErrUnsupported },
		exe:    func(int) (string, error) { return "", errors.ErrUnsupported },
		exists: func(pid int) bool { return pid == 100 },
	}
	if got := bindAgent(300, 100, 0, blind); got != 100 {
		t.Errorf("blind, bound alive: %d, want 100", got)
	}
	if got := bindAgent(300, 200, 0, blind); got != 300 {
		t.Errorf("blind, bound gone: %d, want 300", got)
	}
}
