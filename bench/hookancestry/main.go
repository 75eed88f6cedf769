//go:build linux

// Command hookancestry prints, for every hook adapter that starts on this
// host (statuspub *-hook, codex-notify, serve), the chain of processes it
// runs under: pid, command name, executable and command line of each
// ancestor up to init. It learns of each exec from the kernel's process
// events (the netlink proc connector, which needs root) and reads /proc at
// once, while the short-lived helpers an agent may run a hook under still
// live. docs/agents.md ("Which process runs the hooks") was measured with
// it, running beside the real-agent harness:
//
//	go run ./bench/hookancestry > ancestry.txt &
//	AGENTSTATUS_E2E=1 go test ./internal/e2e -run ...
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// From <linux/connector.h> and <linux/cn_proc.h>.
const (
	cnIdxProc         = 1
	cnValProc         = 1
	procCnMcastListen = 1
	procEventExec     = 2
	nlmsgHdrLen       = 16
	cnMsgLen          = 20
)

func main() {
	fd, err := listen()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookancestry:", err)
		os.Exit(1)
	}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			if err == unix.EINTR || err == unix.ENOBUFS {
				continue
			}
			fmt.Fprintln(os.Stderr, "hookancestry:", err)
			os.Exit(1)
		}
		for off := 0; off+nlmsgHdrLen <= n; {
			l := int(binary.NativeEndian.Uint32(buf[off:]))
			if l < nlmsgHdrLen || off+l > n {
				break
			}
			if ev := buf[off+nlmsgHdrLen+cnMsgLen : off+l]; len(ev) >= 24 && binary.NativeEndian.Uint32(ev) == procEventExec {
				report(int(binary.NativeEndian.Uint32(ev[20:]))) // the exec'ing process's tgid
			}
			off += (l + 3) &^ 3
		}
	}
}

// listen subscribes to the kernel's process events.
func listen() (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_CONNECTOR)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: cnIdxProc, Pid: uint32(os.Getpid())}); err != nil {
		return -1, fmt.Errorf("bind (root is needed): %w", err)
	}
	msg := make([]byte, nlmsgHdrLen+cnMsgLen+4)
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], unix.NLMSG_DONE)
	binary.NativeEndian.PutUint32(msg[12:], uint32(os.Getpid()))
	binary.NativeEndian.PutUint32(msg[16:], cnIdxProc)
	binary.NativeEndian.PutUint32(msg[20:], cnValProc)
	binary.NativeEndian.PutUint16(msg[32:], 4)
	binary.NativeEndian.PutUint32(msg[36:], procCnMcastListen)
	return fd, unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// cmdline is pid's arguments.
func cmdline(pid int) []string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.Split(string(bytes.TrimRight(data, "\x00")), "\x00")
}

// report prints pid's ancestry when it is a hook adapter.
func report(pid int) {
	argv := cmdline(pid)
	if len(argv) < 2 || !strings.HasSuffix(argv[0], "statuspub") ||
		!(strings.HasSuffix(argv[1], "-hook") || argv[1] == "codex-notify" || argv[1] == "serve") {
		return
	}
	var b strings.Builder
	for p, hops := pid, 0; p > 1 && hops < 32; hops++ {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if err != nil || open < 0 || end < open {
			fmt.Fprintf(&b, "  %d gone\n", p)
			break
		}
		fields := strings.Fields(string(stat[end+1:]))
		exe, _ := os.Readlink("/proc/" + strconv.Itoa(p) + "/exe")
		line := strings.Join(cmdline(p), " ")
		if len(line) > 100 {
			line = line[:100] + "..."
		}
		fmt.Fprintf(&b, "  %d (%s) %s [%s]\n", p, stat[open+1:end], exe, line)
		if len(fields) < 2 {
			break
		}
		p, _ = strconv.Atoi(fields[1])
	}
	fmt.Printf("%s\n%s", strings.Join(argv, " "), b.String())
}
