//go:build !linux

package testmain

// TempInMemory does nothing outside Linux: there is no /dev/shm to
// count on.
func TempInMemory() {}
