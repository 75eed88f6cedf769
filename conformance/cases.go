package conformance

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
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

// Protocol is the protocol the suite checks, as SPEC.md specifies it.
const Protocol = "gentle-shell.agent-status/v1"

// VectorsDigest identifies the set of reader vectors and publisher checks
// built into the suite: the first 12 hex digits of a SHA-256 over every
// vector file (path and content) and every check id with its level and
// rules. Reports carry it, so that two runs can tell whether they ran the
// same suite; ids never change meaning, so results stay comparable id by
// id across digests.
func VectorsDigest() string {
	h := sha256.New()
	fs.WalkDir(vectors, "testdata/reader", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := vectors.ReadFile(p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return err
	})
	for _, c := range Checks() {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", c.ID, c.Level, strings.Join(c.Rules, " "))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
