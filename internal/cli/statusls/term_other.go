//go:build !unix && !windows

package statusls

import "os"

func terminal(*os.File) (bool, int) { return false, 0 }
