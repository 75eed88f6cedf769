//go:build !unix

package statusls

import "os"

// inspectDir says what doctor needs to know about a directory: on this
// platform, only its mode as Go shows it; nothing when it cannot be found.
func inspectDir(path string) dirInfo {
	fi, err := os.Lstat(path)
	if err != nil {
		return dirInfo{}
	}
	return dirInfo{mode: fi.Mode().String(), mine: true}
}
