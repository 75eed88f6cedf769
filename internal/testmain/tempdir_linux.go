package testmain

import (
	"os"

	"golang.org/x/sys/unix"
)

// memoryDir is the tmpfs that Linux mounts for shared memory.
const memoryDir = "/dev/shm"

// minMemoryFree is how much room memoryDir must have. Containers often
// mount a 64 MiB /dev/shm, too small for the tests' files and the
// commands they build: the tests then stay on the disk.
const minMemoryFree = 1 << 30

// TempInMemory points TMPDIR at /dev/shm when TMPDIR is not set and
// /dev/shm is a writable tmpfs with at least a gibibyte free, so that
// t.TempDir and os.MkdirTemp put the tests' files in memory. The
// publisher syncs every record to its device before the rename (SPEC.md
// §9.1); on a disk each sync waits for the device, and the tests write
// tens of thousands of records to check what is written, not the disk.
// A TMPDIR that is set is left alone: TMPDIR=/tmp runs the tests on the
// disk. The subprocesses the tests start inherit it.
func TempInMemory() {
	if os.Getenv("TMPDIR") != "" {
		// Set by an earlier TempInMemory when this binary was restarted
		// (SkipRaceExitSleep) or started by a test: the disk's stays known.
		if os.Getenv("TMPDIR") == memoryDir {
			diskTemp = os.Getenv(diskTempEnv)
		}
		return
	}
	var fs unix.Statfs_t
	if unix.Statfs(memoryDir, &fs) != nil || fs.Type != unix.TMPFS_MAGIC ||
		uint64(fs.Bavail)*uint64(fs.Bsize) < minMemoryFree ||
		unix.Access(memoryDir, unix.W_OK|unix.X_OK) != nil {
		return
	}
	diskTemp = os.TempDir()
	os.Setenv(diskTempEnv, diskTemp)
	os.Setenv("TMPDIR", memoryDir)
}

// diskTempEnv carries the disk's temporary directory to the restarted
// binary and the programs the tests start.
const diskTempEnv = "AGENTSTATUS_TEST_DISK_TMPDIR"
