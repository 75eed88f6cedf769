//go:build unix

package statusls

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// inspectDir says what doctor needs to know about a directory beyond
// perm's rules: its mode as ls -ld shows it, whether it is shared with
// other accounts, and whether the current user can use it; nothing when
// it cannot be found.
func inspectDir(path string) dirInfo {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return dirInfo{}
	}
	m := uint32(st.Mode)
	info := dirInfo{
		mode:   fmt.Sprintf("%s (%04o)", lsMode(m), m&0o7777),
		sticky: m&unix.S_ISVTX != 0,
		mine:   int(st.Uid) == os.Geteuid(),
	}
	info.shared = info.sticky || !info.mine
	if m&unix.S_IFMT == unix.S_IFDIR {
		// access(2) answers for this user, root's overrides included:
		// a directory of mode 0000 is unusable for anyone else.
		if err := unix.Access(path, unix.R_OK|unix.W_OK|unix.X_OK); err == syscall.EACCES || err == syscall.EPERM {
			info.noAccess = true
		}
	}
	return info
}

// lsMode renders a mode as ls -l does: type, then rwx for owner, group
// and others, with s/S for setuid and setgid and t/T for the sticky bit.
func lsMode(m uint32) string {
	b := []byte("----------")
	types := map[uint32]byte{unix.S_IFDIR: 'd', unix.S_IFLNK: 'l', unix.S_IFIFO: 'p', unix.S_IFSOCK: 's', unix.S_IFCHR: 'c', unix.S_IFBLK: 'b'}
	if t, ok := types[m&unix.S_IFMT]; ok {
		b[0] = t
	}
	const rwx = "rwx"
	for i := 0; i < 9; i++ {
		if m&(1<<(8-i)) != 0 {
			b[1+i] = rwx[i%3]
		}
	}
	special := func(pos int, bit uint32, set, unset byte) {
		if m&bit != 0 {
			if b[pos] == 'x' {
				b[pos] = set
			} else {
				b[pos] = unset
			}
		}
	}
	special(3, unix.S_ISUID, 's', 'S')
	special(6, unix.S_ISGID, 's', 'S')
	special(9, unix.S_ISVTX, 't', 'T')
	return string(b)
}
