package safefs

import "golang.org/x/sys/unix"

func renameat2NoReplace(dirfd int, old, new string) error {
	for {
		err := unix.Renameat2(dirfd, old, dirfd, new, unix.RENAME_NOREPLACE)
		if err != unix.EINTR {
			return err
		}
	}
}
