// Package sshtest starts a real OpenSSH server for tests: on a random
// loopback port, with generated host and user keys and its own sshd_config
// and ssh_config, never touching the machine's sshd or ~/.ssh. Hosts are
// ssh_config aliases of that one server, each with its own status directory
// (SetEnv STATUS_DIR, accepted by the server).
package sshtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/shquote"
	"github.com/agentstatus/agentstatus/internal/testbin"
)

// RequireEnv makes a missing sshd a failure instead of a skip (CI sets it).
const RequireEnv = "AGENTSTATUS_REQUIRE_TOOLS"

// Server is a running sshd.
type Server struct {
	// Dir holds the keys, the configurations and the log.
	Dir string
	// Config is the ssh_config file: pass "-F", Config to ssh.
	Config string
	// Port is the server's port; NoStatuslsPort a second one whose
	// sessions have no statusls on their $PATH.
	Port, NoStatuslsPort int
	// BinDir is on the $PATH of sessions on Port.
	BinDir string
}

// Host is an ssh_config alias of the server.
type Host struct {
	Name string
	// StatusDir is its $STATUS_DIR ("" for none).
	StatusDir string
	// NoStatusls puts it on the port whose $PATH has no statusls.
	NoStatusls bool
	// Down makes it a port where nothing listens.
	Down bool
}

// find looks for a program on $PATH and in the sbin directories.
func find(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p
		}
	}
	return ""
}

// Need skips the test when sshd, ssh or ssh-keygen is missing, unless
// $AGENTSTATUS_REQUIRE_TOOLS is 1, where it fails.
func Need(t testing.TB) {
	t.Helper()
	for _, name := range []string{"sshd", "ssh", "ssh-keygen"} {
		if find(name) == "" {
			if os.Getenv(RequireEnv) == "1" {
				t.Fatalf("%s is required (%s=1) but not found", name, RequireEnv)
			}
			t.Skipf("%s not found; set %s=1 to make this a failure", name, RequireEnv)
		}
	}
}

// Start starts sshd with the hosts as aliases; the toolkit's commands,
// built by [testbin.Build], go on the $PATH of its sessions (call
// testbin.Cleanup from TestMain). The server stops when the test ends.
// Under go test -short it skips the test: a real server is for the full
// suite. So does a missing sshd (see [Need]), before anything is built.
func Start(t testing.TB, hosts ...Host) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real OpenSSH server; runs without -short")
	}
	Need(t)
	binDir, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Short: socket paths of shared connections live below it.
	dir, err := os.MkdirTemp("", "sshtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{Dir: dir, BinDir: binDir}
	keygen := find("ssh-keygen")
	for _, k := range []string{"host_key", "user_key"} {
		out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "sshtest", "-f", filepath.Join(dir, k)).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	write(t, filepath.Join(dir, "known_hosts"), []byte("sshtest-host "+string(hostPub)), 0o600)

	if os.Getuid() == 0 {
		// sshd running as root wants its privilege separation directory,
		// which the package's boot scripts make and a container may lack.
		os.MkdirAll("/run/sshd", 0o755)
	}
	var lastErr error
	for range 5 {
		s.Port, s.NoStatuslsPort = testbin.FreePort(t), testbin.FreePort(t)
		if lastErr = s.startSSHD(t); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatal(lastErr)
	}

	// The client's configuration. ssh takes the first value of each
	// option: aliases come first. The user is ssh's default, this one.
	var b bytes.Buffer
	for _, h := range hosts {
		fmt.Fprintf(&b, "Host %s\n", h.Name)
		switch {
		case h.Down:
			fmt.Fprintf(&b, "\tPort %d\n", testbin.FreePort(t))
		case h.NoStatusls:
			fmt.Fprintf(&b, "\tPort %d\n", s.NoStatuslsPort)
		}
		if h.StatusDir != "" {
			fmt.Fprintf(&b, "\tSetEnv STATUS_DIR=%s\n", h.StatusDir)
		}
	}
	fmt.Fprintf(&b, `Host *
	HostName 127.0.0.1
	Port %d
	IdentityFile %s
	IdentitiesOnly yes
	IdentityAgent none
	HostKeyAlias sshtest-host
	UserKnownHostsFile %s
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	UpdateHostKeys no
	LogLevel ERROR
`, s.Port, filepath.Join(dir, "user_key"), filepath.Join(dir, "known_hosts"))
	s.Config = filepath.Join(dir, "ssh_config")
	write(t, s.Config, b.Bytes(), 0o600)
	// Runs before sshd stops: the shared connections' masters (ssh
	// processes left in the background by ControlPersist) exit too.
	t.Cleanup(s.stopMasters)
	return s
}

// stopMasters asks every shared connection below Dir to exit.
func (s *Server) stopMasters() {
	filepath.WalkDir(s.Dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type()&os.ModeSocket != 0 {
			exec.Command(SSH(), "-F", "/dev/null", "-o", "ControlPath="+path, "-O", "exit", "sshtest-host").Run()
		}
		return nil
	})
}

func write(t testing.TB, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) startSSHD(t testing.TB) error {
	path := "/usr/local/bin:/usr/bin:/bin"
	cfg := fmt.Sprintf(`Port %d
Port %d
ListenAddress 127.0.0.1
HostKey %s
# The user's public key is the one authorized.
AuthorizedKeysFile %s
PidFile %s
# Our files live in a temporary directory that StrictModes would refuse.
StrictModes no
# Tests run as root in CI: allow it, with keys only.
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AcceptEnv STATUS_DIR GENTLE_PI_CONFIG_HOME
MaxStartups 200
MaxSessions 200
LogLevel VERBOSE
# bash reads ~/.bashrc for ssh commands only when SHLVL is below 1: the
# account's own shell setup (and whatever it puts on $PATH) stays out.
SetEnv PATH=%s:%s SHLVL=1
Match LocalPort %d
	SetEnv PATH=%s SHLVL=1
`, s.Port, s.NoStatuslsPort, filepath.Join(s.Dir, "host_key"), filepath.Join(s.Dir, "user_key.pub"),
		filepath.Join(s.Dir, "sshd.pid"), s.BinDir, path, s.NoStatuslsPort, path)
	cfgPath := filepath.Join(s.Dir, "sshd_config")
	write(t, cfgPath, []byte(cfg), 0o600)
	logf, err := os.Create(filepath.Join(s.Dir, "sshd.log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(find("sshd"), "-D", "-e", "-f", cfgPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(exited) }()
	log := func() []byte { b, _ := os.ReadFile(logf.Name()); return b }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.Port), time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			return fmt.Errorf("sshd exited: %s", log())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return fmt.Errorf("sshd did not listen within 10s")
		}
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			log := log()
			t.Logf("sshd log:\n%s", log[max(len(log)-4000, 0):])
		}
	})
	return nil
}

// SSH returns the path of the system's ssh.
func SSH() string { return find("ssh") }

// Wrapper writes an executable "ssh" into a new directory that runs the
// system's ssh with this server's configuration, for programs that run
// "ssh" from $PATH; it returns the directory.
func (s *Server) Wrapper(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(s.Dir, "wrapper")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nexec " + shquote.Join(SSH(), "-F", s.Config) + " \"$@\"\n"
	testbin.WriteProgram(t, filepath.Join(dir, "ssh"), script)
	return dir
}
