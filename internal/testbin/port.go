package testbin

import (
	"net"
	"testing"
)

// FreePort returns a TCP port free on 127.0.0.1 just now, for a server a
// test starts. Another process may take it before the server does: a test
// that must not fail then retries with a new port.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
