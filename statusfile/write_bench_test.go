//go:build !windows

package statusfile

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteFile measures what one publish costs on this machine's file
// system, and how much of it is the fsync renameio makes before the rename:
// "without-fsync" makes the same checks and the same rename, skipping only
// the sync. It exists for comparison; the publisher always syncs.
func BenchmarkWriteFile(b *testing.B) {
	home := filepath.Join(b.TempDir(), "home")
	dir := StatusDir(home)
	data, _ := Encode(Status{Agent: "bench", Session: "bench", PID: 1, Cwd: "/", State: Working, Title: "Benchmark", UpdatedAt: t0})
	name := FileName("bench")
	b.Run("renameio", func(b *testing.B) {
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
	root, err := openForWrite(home, dir, name)
	if err != nil {
		return err
	}
	defer root.Close()
	tmp := "." + name + ".nosync"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, name)
}
