//go:build !linux

// Command hookancestry reads Linux's process events: it runs on Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "hookancestry: Linux only")
	os.Exit(1)
}
