package testmain

import (
	"os"
	"testing"
)

// diskTemp is the temporary directory as it was before [TempInMemory]
// moved TMPDIR to memory; empty when it did not.
var diskTemp string

// DiskTempDir is t.TempDir where the temporary files were before
// [TempInMemory]: on the disk, unless TMPDIR says otherwise. It is for the
// tests whose subject is how readers and writers overlap on a real file
// system: on a tmpfs a write is so quick that a reader almost never
// catches one halfway, and a test that shows a non-atomic writer is caught
// would pass by luck, or fail.
func DiskTempDir(t testing.TB) string {
	t.Helper()
	if diskTemp == "" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(diskTemp, "agentstatus-test-disk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}
