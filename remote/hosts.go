package remote

import "github.com/agentstatus/agentstatus/internal/hostname"

// CheckHost is the old name of a check that [List], [Watch] and [Wait]
// make themselves.
func CheckHost(h string) error { return hostname.Check(h) }
