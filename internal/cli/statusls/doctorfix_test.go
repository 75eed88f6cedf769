package statusls

import (
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/remote"
)

// TestDoctorFixQuotesHost checks that doctor's command lines quote the
// host as one shell word and show a host's hint sanitized.
func TestDoctorFixQuotesHost(t *testing.T) {
	for _, tc := range []struct {
		he   remote.HostError
		want string
	}{
		{remote.HostError{Host: "a>b", Kind: failSSH}, `"ssh -o BatchMode=yes 'a>b' true"`},
		{remote.HostError{Host: "x(y", Kind: failTimeout}, `"ssh 'x(y' statusls"`},
		{remote.HostError{Host: "x(y", Kind: failRefused}, `"ssh 'x(y' statusls doctor"`},
		{remote.HostError{Host: "a>b", Kind: failOutput}, `"ssh 'a>b' statusls --json --all"`},
		{remote.HostError{Host: "devbox", Kind: failSSH}, "'ssh -o BatchMode=yes devbox true'"},
	} {
		if got := doctorFix(&tc.he); !strings.Contains(got, tc.want) {
			t.Errorf("doctorFix(%+v) = %q, want it to hold %q", tc.he, got, tc.want)
		}
	}
	he := &remote.HostError{Host: "h", Kind: failRefused, Hint: "run \x1b[31mthis\x07"}
	if got := doctorFix(he); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("doctorFix shows the hint raw: %q", got)
	}
}
