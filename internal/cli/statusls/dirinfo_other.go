//go:build !unix

package statusls

import "os"

// inspectDir says what doctor needs to know about a directory: on this
// platform, only its mode as Go shows it.
func inspectDir(path string) (dirInfo, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return dirInfo{}, false
	}
	return dirInfo{mode: fi.Mode().String(), mine: true}, true
}
