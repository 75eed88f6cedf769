package conformance

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// The suite's data, built in: the reader vectors and the hook traces.
var (
	//go:embed testdata/reader
	vectors embed.FS
	//go:embed hooktraces
	hookTraceFS embed.FS
)

// cases parses the reader vectors built into the suite.
func cases() ([]*vector.Case, error) {
	return vector.Load(vectors, "testdata/reader")
}

// hookTraces returns the suite's traces, of one agent ("claude", "codex",
// "gemini") or, with agent empty, of all.
func hookTraces(agent string) ([]*vector.HookTrace, error) {
	return vector.LoadHookTraces(hookTraceFS, "hooktraces", agent)
}

// protocol is the protocol the suite checks, as SPEC.md specifies it.
const protocol = "gentle-shell.agent-status/v1"

// vectorsDigest identifies the set of reader vectors and publisher checks
// built into the suite: the first 12 hex digits of a SHA-256 over every
// vector file (path and content) and every check id with its level and
// rules. Reports carry it (Report.Vectors), so that two runs can tell
// whether they ran the same suite; ids never change meaning, so results
// stay comparable id by id across digests.
func vectorsDigest() string {
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
	for _, c := range checks() {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", c.ID, c.Level, strings.Join(c.Rules, " "))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
