package remote

import (
	"os"
	"testing"

	"github.com/agentstatus/agentstatus/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
