package statusls

import (
	"testing"

	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// The usage texts are golden files: a change to them shows in review.
func TestUsageGolden(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		golden string
	}{
		{[]string{"--help"}, "usage"},
		{[]string{"watch", "--help"}, "usage.watch"},
		{[]string{"wait", "--help"}, "usage.wait"},
	} {
		r := run(t, runOpts{}, tt.args...)
		if r.code != base.ExitOK || r.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
		}
		golden(t, tt.golden, r.stdout)
	}
}
