package shquote

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"devbox", "devbox"},
		{"user@build-1.example.com", "user@build-1.example.com"},
		{"/usr/local/bin/statusls", "/usr/local/bin/statusls"},
		{"~x", "'~x'"},
		{"~/go/bin/statusls", "'~/go/bin/statusls'"},
		{"a b", "'a b'"},
		{"a>b", "'a>b'"},
		{"x(y", "'x(y'"},
		{"it's", `'it'\''s'`},
		{"$(id)", "'$(id)'"},
		{"*", "'*'"},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := Join("ssh", "a>b", "statusls"), "ssh 'a>b' statusls"; got != want {
		t.Errorf("Join = %q, want %q", got, want)
	}
}

// FuzzQuote checks with a real shell that the quoted word reads back as
// exactly the input.
func FuzzQuote(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		if os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") != "" {
			f.Fatal("no sh:", err)
		}
		f.Skip("no sh")
	}
	for _, s := range []string{"", "~x", "~", "a'b", `\`, "$HOME", "`id`", "a b", "*", "-n", "%s", "x=y", "\t\n", "é", "\x9b", "!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("a NUL byte cannot be passed in an argument")
		}
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(s)).Output()
		if err != nil {
			t.Fatalf("sh -c 'printf %%s %s': %v", Quote(s), err)
		}
		if string(out) != s {
			t.Fatalf("Quote(%q) = %q; the shell read back %q", s, Quote(s), out)
		}
	})
}
