//go:build unix && !aix && !solaris && !illumos

package statusls

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/safefs"
	"github.com/agentstatus/agentstatus/internal/testhook"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// exitedPID returns the pid of a child that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	return cmd.Process.Pid
}

// sleeper starts a process that lives until the test ends.
func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func exists(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, name))
	return err == nil
}

// pidLiveness is what the reader's liveness check says of pid in a
// record written at at.
func pidLiveness(t *testing.T, pid int, at time.Time) reader.Liveness {
	t.Helper()
	dir := privateDir(t)
	publish(t, dir, statusfile.Status{Agent: "pi", Session: "probe", PID: pid, State: "idle", UpdatedAt: at})
	l, err := reader.List(dir, reader.Options{Liveness: true})
	if err != nil || len(l.Entries) != 1 {
		t.Fatalf("probe listing: %v", err)
	}
	return l.Entries[0].Alive
}

func TestPrune(t *testing.T) {
	dir := privateDir(t)
	realNow := time.Now()
	old := realNow.Add(-time.Hour)
	dead := exitedPID(t)
	// An alive publisher: pid 1 started (at boot) before the record.
	aliveAt := realNow.Add(-45 * time.Second)
	if pidLiveness(t, 1, aliveAt) != reader.Alive {
		t.Skip("pid 1 started less than 45 s ago")
	}
	names := map[string]string{
		"dead":    publish(t, dir, statusfile.Status{Agent: "pi", Session: "dead", PID: dead, State: "idle", UpdatedAt: old}),
		"reused":  publish(t, dir, statusfile.Status{Agent: "pi", Session: "reused", PID: os.Getpid(), State: "idle", UpdatedAt: time.Unix(0, 0)}),
		"alive":   publish(t, dir, statusfile.Status{Agent: "pi", Session: "alive", PID: 1, State: "idle", UpdatedAt: aliveAt}),
		"unknown": publish(t, dir, statusfile.Status{Agent: "pi", Session: "unknown", State: "idle", UpdatedAt: old}),
		"fresh":   publish(t, dir, statusfile.Status{Agent: "pi", Session: "fresh", PID: dead, State: "idle", UpdatedAt: realNow}),
	}
	writeFile(t, dir, statusfile.FileName("broken"), []byte("{"))
	writeFile(t, dir, "notes.json", rec("notes", "updatedAt", `"2000-01-01T00:00:00Z"`))
	os.Symlink(filepath.Join(dir, names["dead"]), filepath.Join(dir, statusfile.FileName("link")))
	o := runOpts{now: realNow}
	r := run(t, o, "prune", "--dry-run", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "would remove "+names["dead"]) || !strings.Contains(r.stdout, "kept "+names["reused"]) ||
		!strings.Contains(r.stdout, "kept "+names["alive"]) || !strings.Contains(r.stdout, "pid unknown") || !strings.Contains(r.stdout, "would remove 1 of 4 stale sessions") {
		t.Errorf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for s, n := range names {
		if !exists(dir, n) {
			t.Errorf("dry run removed %s", s)
		}
	}
	r = run(t, o, "prune", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "removed "+names["dead"]+` (session "dead", agent pi): stale for 1h, pid `) || !strings.Contains(r.stdout, "removed 1 of 4 stale sessions") {
		t.Errorf("prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for s, n := range names {
		if want := s != "dead"; exists(dir, n) != want {
			t.Errorf("%s: exists %v, want %v", s, exists(dir, n), want)
		}
	}
	// --older-than: unknown and seemingly reused pids go once older than
	// D; an alive pid never does.
	r = run(t, o, "prune", "--older-than", "30m", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "removed 2 of 3 stale sessions") || !strings.Contains(r.stdout, "older than 30m") {
		t.Errorf("prune --older-than: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for s, n := range names {
		if want := s == "alive" || s == "fresh"; exists(dir, n) != want {
			t.Errorf("--older-than: %s: exists %v, want %v", s, exists(dir, n), want)
		}
	}
	for _, n := range []string{statusfile.FileName("broken"), "notes.json", statusfile.FileName("link")} {
		if !exists(dir, n) {
			t.Errorf("prune removed %s", n)
		}
	}
	if r := run(t, o, "prune", "--dir", filepath.Join(dir, "none")); r.code != 0 || !strings.Contains(r.stdout, "nothing to prune") {
		t.Errorf("missing dir: %d %q", r.code, r.stdout)
	}
	if r := run(t, o, "prune", "--older-than", "soon", "--dir", dir); r.code != 2 {
		t.Errorf("--older-than soon: exit %d", r.code)
	}
}

// SPEC.md D2: after the wall clock steps forward, a live publisher's last
// record seems older than its process. That is no proof: it is kept.
func TestPruneKeepsLivePublisherAfterClockStep(t *testing.T) {
	dir := privateDir(t)
	live := sleeper(t)
	// Written "before" the process started, as a +600 s step makes it look.
	name := publish(t, dir, statusfile.Status{Agent: "pi", Session: "live", PID: live.Process.Pid, State: "working", UpdatedAt: time.Now().Add(-600 * time.Second)})
	r := run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
	if r.code != 0 || !exists(dir, name) || !strings.Contains(r.stdout, "kept "+name) {
		t.Fatalf("exit %d, exists %v\n%s%s", r.code, exists(dir, name), r.stdout, r.stderr)
	}
}

// SPEC.md D4: between judging a record and removing it, its publisher
// writes a new record that gets the judged file's inode. prune removes
// only what it judged: the new record stays.
func TestPruneInodeReuseRace(t *testing.T) {
	dir := privateDir(t)
	dead := exitedPID(t)
	live := sleeper(t)
	name := publish(t, dir, statusfile.Status{Agent: "pi", Session: "s", PID: dead, State: "idle", UpdatedAt: time.Now().Add(-time.Hour)})
	fresh, _ := statusfile.Encode(statusfile.Status{Agent: "pi", Session: "s", PID: live.Process.Pid, State: "working", UpdatedAt: time.Now()})
	restore := testhook.Set(func(point, n string) {
		if point == testhook.RemoveJudged && n == name {
			// The same inode, a new record: what ext4 does when it hands
			// the freed inode of a rewrite to the next one.
			f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.Write(fresh)
			f.Close()
		}
	})
	defer restore()
	r := run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil || string(data) != string(fresh) {
		t.Fatalf("the live record was removed or changed: %q, %v\n%s%s", data, err, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "replaced or removed meanwhile") {
		t.Errorf("output:\n%s", r.stdout)
	}
	if des, _ := os.ReadDir(dir); len(des) != 1 {
		t.Errorf("left behind: %v", des)
	}
}

// SPEC.md D3: a hook session is judged and removed under its write lock,
// and kept while its heartbeat owner runs.
func TestPruneHookSessionLocks(t *testing.T) {
	dir := privateDir(t)
	dead := exitedPID(t)
	name := publish(t, dir, statusfile.Status{Agent: "pi", Session: "h", PID: dead, State: "idle", UpdatedAt: time.Now().Add(-time.Hour)})
	base := strings.TrimSuffix(name, ".json")
	lockPath := filepath.Join(dir, "."+base+".lock")
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	r := run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
	if !exists(dir, name) || !strings.Contains(r.stdout, "being updated") {
		t.Fatalf("removed under a held write lock:\n%s%s", r.stdout, r.stderr)
	}
	f.Close() // releases the lock
	// The owner lock is a POSIX record lock: held by another process.
	ownerPath := filepath.Join(dir, "."+base+".owner")
	os.WriteFile(ownerPath, nil, 0o600)
	holder := exec.Command("python3", "-c", `import fcntl,sys,time
f=open(sys.argv[1],"r+"); fcntl.lockf(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(60)`, ownerPath)
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Skip("python3:", err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf[:6]) != "locked" {
		t.Skipf("python3 did not lock: %q %v", buf, err)
	}
	r = run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
	if !exists(dir, name) || !strings.Contains(r.stdout, "heartbeat owner runs") {
		t.Fatalf("removed while the owner runs:\n%s%s", r.stdout, r.stderr)
	}
	holder.Process.Kill()
	holder.Wait()
	r = run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
	if exists(dir, name) {
		t.Fatalf("not removed once the owner was gone:\n%s%s", r.stdout, r.stderr)
	}
}

// SPEC.md P8, D5: temporary files of gone writers are removed, those of
// live writers kept, those of the earlier writer removed once old; a record
// an interrupted prune left aside is put back.
func TestPruneLeftovers(t *testing.T) {
	dir := privateDir(t)
	dead := exitedPID(t)
	name := statusfile.FileName("s")
	gone := safefs.TempName(name, dead)
	live := safefs.TempName(name, os.Getppid())
	aside := "." + strings.TrimSuffix(name, ".json") + "." + strconv.Itoa(dead) + ".abc" + safefs.AsideSuffix
	rec, _ := statusfile.Encode(statusfile.Status{Agent: "pi", Session: "s", PID: os.Getpid(), State: "idle", UpdatedAt: time.Now()})
	// Temporary files of the writer earlier versions used (renameio)
	// hold no pid: removed once old, kept while they could be in use.
	oldTemp, newTemp := "."+name+"1234567890", "."+name+"42"
	for _, n := range []string{gone, live, ".other", oldTemp, newTemp} {
		writeFile(t, dir, n, []byte("{"))
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, oldTemp), past, past); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, aside, rec)
	r := run(t, runOpts{now: time.Now()}, "prune", "--dry-run", "--dir", dir)
	if !exists(dir, gone) || !exists(dir, aside) || !exists(dir, oldTemp) || !strings.Contains(r.stdout, "would remove temporary file "+gone) ||
		!strings.Contains(r.stdout, "would put back "+aside) || !strings.Contains(r.stdout, "would remove temporary file "+oldTemp+": left by an earlier version's writer 1h0m0s ago") ||
		strings.Contains(r.stdout, newTemp) {
		t.Fatalf("dry run:\n%s%s", r.stdout, r.stderr)
	}
	r = run(t, runOpts{now: time.Now()}, "prune", "--dir", dir)
	if r.code != 0 || exists(dir, gone) || !exists(dir, live) || !exists(dir, ".other") || exists(dir, aside) || exists(dir, oldTemp) || !exists(dir, newTemp) {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != string(rec) {
		t.Errorf("record not put back: %q", data)
	}
}
