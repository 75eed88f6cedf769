//go:build !unix

package conformance

const (
	nonblock = 0
	nofollow = 0
)
