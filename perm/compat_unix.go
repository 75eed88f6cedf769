//go:build unix

package perm

import "github.com/agentstatus/agentstatus/internal/safefs"

// Names kept until the callers import internal/safefs.
type PubDir = safefs.PubDir

const AsideSuffix = safefs.AsideSuffix

var (
	OpenPublishDir = safefs.OpenPublishDir
	ParseAside     = safefs.ParseAside
)
