package goldentest

import (
	"testing"

	"github.com/agentstatus/agentstatus/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Run(m) }
