//go:build unix

package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

const (
	nonblock = syscall.O_NONBLOCK
	nofollow = syscall.O_NOFOLLOW
)

// forkServerOK says whether forkClient works here (Unix sockets with
// SCM_RIGHTS).
const forkServerOK = true

// forkClient runs one run of the script a fork server
// (testdata/python/forkserver.py) listening on the Unix socket sock
// serves: it hands the server its standard input, output and error, its
// environment, args and working directory, and exits with the run's exit
// status. A run that ends without one (killed) ends the client by SIGKILL.
func forkClient(sock string, args []string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "forkclient:", err)
		return 2
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	if args == nil {
		args = []string{}
	}
	msg, _ := json.Marshal(map[string]any{"env": env, "args": args, "cwd": cwd})
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fail(os.NewSyscallError("socket", err))
	}
	conn := os.NewFile(uintptr(fd), sock)
	defer conn.Close()
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		return fail(&os.PathError{Op: "connect", Path: sock, Err: err})
	}
	if err := syscall.Sendmsg(fd, msg, syscall.UnixRights(0, 1, 2), nil, 0); err != nil {
		return fail(os.NewSyscallError("sendmsg", err))
	}
	reply, _ := io.ReadAll(conn)
	code, err := strconv.Atoi(strings.TrimSpace(string(reply)))
	if err != nil {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return code
}
