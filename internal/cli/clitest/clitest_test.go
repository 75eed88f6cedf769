// Package clitest holds the command-line behaviour of statusls, statuspub
// and statusconform as testscript scripts (testdata/*.txtar), one per
// behaviour. The commands run as this test binary, re-executed under their
// names: nothing is built.
//
//	go test ./internal/cli/clitest                   all scripts
//	go test ./internal/cli/clitest -run Script/doctor one script
//	go test ./internal/cli/clitest -run Script/usage -update
//	                                                 rewrite its cmp files
package clitest

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentstatus/agentstatus/internal/cli/statusconform"
	"github.com/agentstatus/agentstatus/internal/cli/statusls"
	"github.com/agentstatus/agentstatus/internal/cli/statuspub"
	_ "github.com/agentstatus/agentstatus/internal/jqrun/gojqrun" // statusls-jq's engine
	"github.com/agentstatus/agentstatus/internal/testbin"
)

func TestMain(m *testing.M) {
	testbin.Main(m, map[string]func() int{
		"statusls":      statusls.Main,
		"statusls-jq":   statusls.Main,
		"statuspub":     statuspub.Main,
		"statusconform": statusconform.Main,
	}, nil)
}

var update = flag.Bool("update", false, "rewrite the scripts' cmp files (the usage texts among them) with what the commands print")

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			// The commands must not see the caller's status setup.
			for _, v := range []string{"STATUS_DIR", "GENTLE_PI_CONFIG_HOME", "NO_COLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS"} {
				e.Setenv(v, "")
			}
			e.Setenv("HOME", e.WorkDir+"/home")
			if os.Geteuid() == 0 {
				e.Setenv("ROOT", "1")
			}
			bgSetup(e)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"start":  cmdStart,
			"await":  cmdAwait,
			"finish": cmdFinish,
			// mkfifo PATH: a named pipe, which no reader may open and
			// wait on for a writer.
			"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: mkfifo PATH")
				}
				ts.Check(mkfifo(ts.MkAbs(args[0])))
			},
			// status N CMD [ARGS...]: run CMD, which must exit with N.
			"status": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: status N CMD [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("status: %v", err)
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("status: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, nil
		},
	})
}
