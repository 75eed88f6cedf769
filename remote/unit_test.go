package remote

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/hostname"
)

func TestArgs(t *testing.T) {
	c := &Config{SSHArgs: []string{"-F", "cfg"}, Command: "~/go/bin/statusls", ConnectTimeout: 1500 * time.Millisecond, Reuse: true, ControlDir: "/run/u/as"}
	got, err := c.args("dev", []string{"--json", "--all", "it's"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-F", "cfg", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=2",
		"-o", "ControlMaster=auto", "-o", "ControlPath=/run/u/as/" + controlPath("", "dev"), "-o", "ControlPersist=60",
		"--", "dev", `~/go/bin/statusls --json --all 'it'\''s'`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c.Reuse = false
	got, _ = c.args("dev", nil)
	if !strings.Contains(strings.Join(got, " "), "-o ControlMaster=no -o ControlPath=none --") {
		t.Errorf("without reuse: %q", got)
	}
	if _, err := c.args("-oProxyCommand=sh", nil); err == nil {
		t.Error("a host starting with - reached ssh's arguments")
	}
}

// TestRemoteCommandThroughShell runs the command string through sh, as the
// remote side does, and checks that every argument arrives as it was.
func TestRemoteCommandThroughShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no sh")
	}
	args := []string{"plain", "two words", "it's", "$(touch pwned)", "`id`", "a;b|c&d", "*", "~", "", "\\n", "é ü", "--x=y"}
	cmd := remoteCommand("printf", append([]string{"%s\\0"}, args...)...)
	dir := t.TempDir()
	sh := exec.Command("/bin/sh", "-c", cmd)
	sh.Dir = dir
	out, err := sh.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !reflect.DeepEqual(got, args) {
		t.Errorf("sh -c %s\ngot  %q\nwant %q", cmd, got, args)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("an argument was run by the shell")
	}
}

func TestPrepareControlDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix sockets")
	}
	base := t.TempDir()
	dir := filepath.Join(base, "cm")
	if err := prepareControlDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode())
	}
	os.Chmod(dir, 0o755)
	if err := prepareControlDir(dir); !errors.Is(err, errControlDir) {
		t.Errorf("0755: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(dir, link)
	os.Chmod(dir, 0o700)
	if err := prepareControlDir(link); !errors.Is(err, errControlDir) {
		t.Errorf("symlink: %v", err)
	}
	if err := prepareControlDir("/" + strings.Repeat("x", 70)); !errors.Is(err, errControlDir) {
		t.Errorf("too long: %v", err)
	}
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 12345, 12345)
		if err := prepareControlDir(other); !errors.Is(err, errControlDir) {
			t.Errorf("owned by another account: %v", err)
		}
	}
}

// TestClassifyHintsQuoteHost checks that the command lines in hints quote
// the host name as one shell word: names such as a>b or x(y pass
// hostname.Check, and a pasted hint must run ssh, not a redirection.
func TestClassifyHintsQuoteHost(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	exit := func(code string) error {
		err := exec.Command(sh, "-c", "exit "+code).Run()
		if err == nil {
			t.Fatal("sh exited 0")
		}
		return err
	}
	for _, host := range []string{"a>b", "x(y", "u@h~1"} {
		if err := hostname.Check(host); err != nil {
			t.Fatalf("hostname.Check(%q): %v", host, err)
		}
		word := "'" + host + "'"
		for _, tc := range []struct {
			name string
			err  error
			derr error
			want string
		}{
			{"ssh", exit("255"), nil, `"ssh -o BatchMode=yes ` + word + ` true"`},
			{"refused", exit("1"), nil, `"statusls doctor --host ` + word + `"`},
			{"output", nil, errors.New("garbage"), `"ssh ` + word + ` statusls --json --all"`},
		} {
			he := classify(host, context.Background(), tc.err, nil, tc.derr)
			if he == nil || !strings.Contains(he.Hint, tc.want) {
				t.Errorf("%s, host %q: hint %+v does not hold %s", tc.name, host, he, tc.want)
			}
		}
	}
}
