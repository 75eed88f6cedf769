//go:build race

package testmain

// RaceEnabled reports whether the test binary is built with -race.
const RaceEnabled = true
