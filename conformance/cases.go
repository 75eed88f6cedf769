package conformance

import (
	"embed"
	"io/fs"
)

//go:embed testdata/reader
var vectors embed.FS

// VectorFS is the reader vectors, as plain files under "reader/".
func VectorFS() fs.FS {
	sub, err := fs.Sub(vectors, "testdata")
	if err != nil {
		panic(err)
	}
	return sub
}

// Cases parses the reader vectors built into the suite.
func Cases() ([]*Case, error) {
	return LoadCases(VectorFS(), "reader")
}
