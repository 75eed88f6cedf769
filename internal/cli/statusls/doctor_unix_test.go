//go:build unix

package statusls_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDoctorNoAccess: a status directory of mode 0000 is unusable for its
// owner, whatever perm's rules say about its mode, and doctor says so and
// how to fix it. Root can use any directory, so as root the test runs
// statusls as another account (nobody's uid) on files chowned to it.
func TestDoctorNoAccess(t *testing.T) {
	const nobody = 65534
	base, err := os.MkdirTemp("", "statusls-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	home := filepath.Join(base, "home")
	dir := filepath.Join(home, "agent-status")
	os.Mkdir(home, 0o700)
	os.Mkdir(dir, 0o700)
	prog, args := bin, []string{"doctor", "--config-home", home}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// A copy of the command that nobody can run.
		prog = filepath.Join(base, "statusls")
		if err := copyFile(bin, prog); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{home, dir} {
			if err := os.Chown(p, nobody, nobody); err != nil {
				t.Skip(err)
			}
		}
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	os.Chmod(dir, 0)
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), "HOME="+base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "you cannot list, enter or write it (mode d--------- (0000))") ||
		strings.Count(text, "chmod 700 "+dir) != 1 {
		t.Errorf("doctor on a 0000 status directory:\n%s", text)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
