package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/clocktest"
	"github.com/agentstatus/agentstatus/reader"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// readerPackage is package reader as a reader under test, in process: the
// fresh entries of a listing, displayed as SPEC.md §7 says.
func readerPackage(ctx context.Context, dir string, now time.Time) ([]vector.Session, error) {
	l, err := reader.List(dir, reader.Options{Clock: clocktest.New(now)})
	if err != nil {
		return nil, err
	}
	var out []vector.Session
	for _, e := range l.Fresh() {
		out = append(out, display(e.Status, "")) // as SPEC.md §7 says, no flaw
	}
	return out, nil
}

func TestReaderPackage(t *testing.T) {
	t.Parallel()
	wantAllPass(t, runReader(t, Options{read: readerPackage}))
}

// statusls hangs on no case (a case that hangs fails whatever the
// timeout), so a generous one, as for the Python reader: on a loaded
// machine the suite's default of 5 s failed a case now and then.
func TestStatusls(t *testing.T) {
	testmain.SkipShort(t, "starts statusls once for every case")
	t.Parallel()
	bin := toolkitCommand(t, "statusls")
	wantAllPass(t, runReader(t, Options{Command: []string{bin, "--ndjson", "--now", "{now}"}, Timeout: 30 * time.Second, Parallel: readerTestParallel}))
}
