//go:build unix

package remote

import (
	"fmt"
	"os"
	"syscall"
)

func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link", errControlDir, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", errControlDir, dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%w: %s belongs to another account", errControlDir, dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%w: %s has mode %04o (want 0700)", errControlDir, dir, fi.Mode().Perm())
	}
	return nil
}
