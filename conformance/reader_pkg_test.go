package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

// readerPackage is package reader as a reader under test, in process: the
// fresh entries of a listing, displayed as SPEC.md §7 says.
func readerPackage(ctx context.Context, dir string, now time.Time) ([]Session, error) {
	l, err := reader.List(dir, reader.Options{Now: func() time.Time { return now }})
	if err != nil {
		return nil, err
	}
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	var out []Session
	for _, e := range l.Fresh() {
		s := Session{
			Session: statusfile.SanitizeText(e.Status.Session),
			Agent:   str(statusfile.SanitizeText(e.Status.Agent)),
			State:   statusfile.SanitizeText(string(e.Status.State)),
			Cwd:     str(statusfile.SanitizeText(e.Status.Cwd)),
			Title:   str(statusfile.SanitizeTitle(e.Status.Title)),
		}
		if e.Status.PID != 0 {
			pid := int64(e.Status.PID)
			s.PID = &pid
		}
		out = append(out, s)
	}
	return out, nil
}

func TestReaderPackage(t *testing.T) {
	t.Parallel()
	wantAllPass(t, runReader(t, ReaderOptions{Func: readerPackage}))
}

func TestStatusls(t *testing.T) {
	t.Parallel()
	bin := toolkitCommand(t, "statusls")
	wantAllPass(t, runReader(t, ReaderOptions{Command: []string{bin, "--ndjson", "--now", "{now}"}}))
}
