package remote

import (
	"os"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/testmain"
)

func TestMain(m *testing.M) {
	testmain.Prepare()
	testmain.MoreParallel(8) // the tests wait for ssh, sshd and timeouts
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
