//go:build unix

package perm_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentstatus/agentstatus/perm"
)

func ExampleCheckStatusDir() {
	home, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "agent-status")
	os.Mkdir(dir, 0o700)
	os.Chmod(dir, 0o755) // readable by others: a publisher refuses it

	err := perm.CheckStatusDir(dir)
	var pe *perm.Error
	fmt.Println(errors.Is(err, perm.ErrAccessible), errors.As(err, &pe) && pe.Detail == "mode 0755")
	// Output: true true
}
