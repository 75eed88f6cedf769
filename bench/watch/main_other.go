//go:build !linux

// Command watch benchmarks package watch; it runs on Linux only (it reads
// CLOCK_MONOTONIC across processes and getrusage's ru_maxrss).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "watchbench: Linux only")
	os.Exit(1)
}
