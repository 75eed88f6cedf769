//go:build !unix

package remote

import "fmt"

// Connection reuse needs Unix sockets: elsewhere it is off.
func checkPrivateDir(dir string) error {
	return fmt.Errorf("%w: connection reuse needs Unix sockets", errControlDir)
}
