//go:build !unix

package conformance

const (
	nonblock = 0
	nofollow = 0
)

// forkServerOK says whether forkClient works here: not without Unix
// sockets and SCM_RIGHTS.
const forkServerOK = false

func forkClient(sock string, args []string) int { return 2 }
