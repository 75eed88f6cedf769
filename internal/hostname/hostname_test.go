package hostname

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"devbox", true},
		{"user@build-1.example.com", true},
		{"10.0.0.7", true},
		{"::1", true},
		{"", false},
		{"-oProxyCommand=touch /tmp/x", false},
		{"-V", false},
		{"a b", false},
		{"host\n", false},
		{"host\x1b[31m", false},
		{"h'x", false},
		{"h;x", false},
		{"$(id)", false},
		{"host\x9b31m", false},
		{"h\xff", false},
		{"\xc3", false},
		{"caf\u00e9", true},
		{strings.Repeat("a", 256), false},
	} {
		err := Check(tc.host)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.host, err, tc.ok)
		}
		if err != nil && !errors.Is(err, errBad) {
			t.Errorf("Check(%q): %v is not errBad", tc.host, err)
		}
	}
}
