//go:build unix

// Command floor is the lower bound statusls is measured against: it lists a
// status directory and, single-threaded and relative to the directory's
// descriptor, opens, fstats and reads every *.json file in it (not
// dot-files), doing nothing with the bytes but counting them. Any reader
// has to do at least this much: four system calls per file, plus the
// listing.
//
//	go run ./bench/floor DIR
package main

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor DIR")
		os.Exit(2)
	}
	files, bytes, err := floor(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %d bytes\n", files, bytes)
}

func floor(dir string) (files, total int, err error) {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Close(dfd)
	var names []string
	dirent := make([]byte, 64<<10)
	for {
		n, err := unix.ReadDirent(dfd, dirent)
		if err != nil {
			return 0, 0, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(dirent[:n], -1, names)
	}
	buf := make([]byte, 64<<10+1)
	var st unix.Stat_t
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if err := unix.Fstat(fd, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			// One read: a status file is at most 64 KiB, and a read
			// that returns less than the buffer is at the end of a
			// regular file (statusls, too, reads once, up to fstat's
			// size).
			for {
				n, err := unix.Read(fd, buf)
				if n <= 0 || err != nil {
					break
				}
				total += n
				if n < len(buf) {
					break
				}
			}
			files++
		}
		unix.Close(fd)
	}
	return files, total, nil
}
