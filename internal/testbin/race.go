//go:build race

package testbin

// raceEnabled: the test binary is built with -race.
const raceEnabled = true
