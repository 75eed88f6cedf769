package perm

import "github.com/agentstatus/agentstatus/internal/safefs"

// Names kept until the callers import internal/safefs.
type (
	Dir      = safefs.Dir
	FileStat = safefs.FileStat
	DirEntry = safefs.DirEntry
)

const (
	StatusDir  = safefs.StatusDir
	StatusFile = safefs.StatusFile
	ConfigHome = safefs.ConfigHome
	FileMode   = safefs.FileMode
	DirMode    = safefs.DirMode
)

var (
	OpenDir  = safefs.OpenDir
	TypeName = safefs.TypeName
)
