//go:build !windows

package statusfile

import "github.com/agentstatus/agentstatus/internal/safefs"

func RemoveStaleTemps(d *safefs.PubDir, name string) error { return safefs.RemoveStaleTemps(d, name) }
