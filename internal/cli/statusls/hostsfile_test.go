package statusls

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitHosts(t *testing.T) {
	got, err := splitHosts(" a,b  c,,a\tuser@d ")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "user@d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := splitHosts("a,-oProxyCommand=x"); err == nil {
		t.Error("a host starting with - was accepted")
	}
}

func TestHostsFromEnvAndFile(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }

	hosts, from, err := configuredHosts(getenv)
	if err != nil || len(hosts) != 0 {
		t.Fatalf("no file: %q, %v", hosts, err)
	}
	want := filepath.Join(home, ".config", "agentstatus", "hosts")
	if from != want {
		t.Errorf("from = %q, want %q", from, want)
	}
	os.MkdirAll(filepath.Dir(want), 0o700)
	os.WriteFile(want, []byte("# my machines\ndevbox, build  # the CI box\n\nuser@gpu\ndevbox\n"), 0o600)
	hosts, _, err = configuredHosts(getenv)
	if err != nil || !reflect.DeepEqual(hosts, []string{"devbox", "build", "user@gpu"}) {
		t.Errorf("file: %q, %v", hosts, err)
	}

	xdg := t.TempDir()
	env["XDG_CONFIG_HOME"] = xdg
	if p, _ := hostsFile(getenv); p != filepath.Join(xdg, "agentstatus", "hosts") {
		t.Errorf("XDG_CONFIG_HOME ignored: %s", p)
	}
	os.MkdirAll(filepath.Join(xdg, "agentstatus"), 0o700)
	os.WriteFile(filepath.Join(xdg, "agentstatus", "hosts"), []byte("ok\n-evil\n"), 0o600)
	if _, _, err := configuredHosts(getenv); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("a bad line is not reported with its number: %v", err)
	}

	env[hostsEnv] = "x, y"
	hosts, from, err = configuredHosts(getenv)
	if err != nil || !reflect.DeepEqual(hosts, []string{"x", "y"}) || from != "$"+hostsEnv {
		t.Errorf("$%s: %q %q %v", hostsEnv, hosts, from, err)
	}
}
