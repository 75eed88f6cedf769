//go:build !unix && !windows

package statusls

import "os"

func terminal(*os.File) (bool, int) { return false, 0 }

func terminalRows(*os.File) int { return 0 }
