//go:build unix

package statusls_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/statusls"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

// The behaviour of the statusls binary is tested as scripts in
// internal/cli/clitest; the tests here run it for what a script cannot
// set up (keys on a terminal, a jq that never ends, doctor as another
// user).
var bin string

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]func() int{"statusls": statusls.Main, "statuspub": statuspub.Main}, func(dir string) {
		bin = filepath.Join(dir, "statusls")
		testmain.MoreParallel(8) // most tests wait for the commands they start
	})
}

func statusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home", location.DirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
