//go:build !windows

package statusfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/safefs"
	"golang.org/x/sys/unix"
)

// BenchmarkWriteFile measures what one publish costs on this machine's file
// system, and how much of it is the fsync made before the rename:
// "without-fsync" makes the same checks and the same rename, skipping only
// the sync. It exists for comparison; the publisher always syncs.
func BenchmarkWriteFile(b *testing.B) {
	home := filepath.Join(b.TempDir(), "home")
	dir := filepath.Join(home, "agent-status")
	data, _ := Encode(Status{Agent: "bench", Session: "bench", PID: 1, Cwd: "/", State: Working, Title: "Benchmark", UpdatedAt: t0})
	name := FileName("bench")
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := writeFile(home, dir, name, data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("without-fsync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := writeNoSync(home, dir, name, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func writeNoSync(home, dir, name string, data []byte) error {
	d, err := safefs.OpenPublishDir(dir, true)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.CheckFile(name); err != nil {
		return err
	}
	tmp := safefs.TempName(name, os.Getpid())
	fd, err := unix.Openat(d.Fd(), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return unix.Renameat(d.Fd(), tmp, d.Fd(), name)
}
