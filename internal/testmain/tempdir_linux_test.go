package testmain

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestTempInMemory(t *testing.T) {
	t.Setenv("TMPDIR", "/somewhere/else")
	TempInMemory()
	if got := os.Getenv("TMPDIR"); got != "/somewhere/else" {
		t.Errorf("a TMPDIR that was set became %q", got)
	}

	os.Unsetenv("TMPDIR") // t.Setenv restores it
	TempInMemory()
	var fs unix.Statfs_t
	suitable := unix.Statfs(memoryDir, &fs) == nil && fs.Type == unix.TMPFS_MAGIC &&
		uint64(fs.Bavail)*uint64(fs.Bsize) >= minMemoryFree && unix.Access(memoryDir, unix.W_OK|unix.X_OK) == nil
	switch got := os.Getenv("TMPDIR"); {
	case suitable && got != memoryDir:
		t.Errorf("%s is a tmpfs with %d MiB free, but TMPDIR is %q", memoryDir, uint64(fs.Bavail)*uint64(fs.Bsize)>>20, got)
	case !suitable && got != "":
		t.Errorf("%s is not a tmpfs with room, but TMPDIR is %q", memoryDir, got)
	}
	if suitable {
		// What a restarted binary, or a program a test starts, sees.
		diskTemp = ""
		TempInMemory()
		if diskTemp != os.Getenv(diskTempEnv) || diskTemp == "" || diskTemp == memoryDir {
			t.Errorf("after a restart the disk's temporary directory is %q (%s=%q)", diskTemp, diskTempEnv, os.Getenv(diskTempEnv))
		}
		if dir := DiskTempDir(t); !strings.HasPrefix(dir, diskTemp+string(os.PathSeparator)) {
			t.Errorf("DiskTempDir gave %s, not a directory in %s", dir, diskTemp)
		}
	}
}
