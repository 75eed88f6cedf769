//go:build linux

package procfs

import (
	"io/fs"
	"strconv"

	"golang.org/x/sys/unix"
)

// ReadStat reads and parses /proc/<pid>/stat. A process that does not
// exist is an error satisfying errors.Is(err, fs.ErrNotExist).
//
// It reads with plain system calls, not through package os: os.Open
// registers every file with the runtime's poller, which /proc refuses
// after three calls to fcntl and one to epoll_ctl, and the first such
// file makes the poller itself. The hook commands read a file or two
// here on every event (the walk to the agent's process), and the
// heartbeat owner one every second while the agent lives.
func ReadStat(pid int) (Stat, error) {
	name := "/proc/" + strconv.Itoa(pid) + "/stat"
	var fd int
	var err error
	for {
		fd, err = unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return Stat{}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	// The line is about 300 bytes; the buffer grows for a longer one.
	data := make([]byte, 0, 1024)
	for {
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Stat{}, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return ParseStat(data)
		}
		data = data[:len(data)+n]
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
