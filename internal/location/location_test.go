package location

import (
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	env := func(m map[string]string) Getenv { return func(k string) string { return m[k] } }
	all := map[string]string{"HOME": "/h", "STATUS_DIR": "/s", "GENTLE_PI_CONFIG_HOME": "/g"}
	tests := []struct {
		name             string
		dir, home        string
		env              map[string]string
		reader           bool
		wantDir, wantSrc string
	}{
		{"dir flag wins", "/d", "/c", all, true, "/d", FromDirFlag},
		{"home flag next", "", "/c", all, true, "/c/agent-status", FromHomeFlag},
		{"STATUS_DIR for readers", "", "", all, true, "/s", FromStatusDir},
		{"publishers ignore STATUS_DIR", "", "", all, false, "/g/agent-status", FromConfigHome},
		{"GENTLE_PI_CONFIG_HOME", "", "", map[string]string{"HOME": "/h", "GENTLE_PI_CONFIG_HOME": "/g"}, true, "/g/agent-status", FromConfigHome},
		{"empty GENTLE_PI_CONFIG_HOME is unset", "", "", map[string]string{"HOME": "/h", "GENTLE_PI_CONFIG_HOME": ""}, true, "/h/.pi/gentle-ai/agent-status", FromDefault},
		{"default", "", "", map[string]string{"HOME": "/h"}, false, "/h/.pi/gentle-ai/agent-status", FromDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ForPublisher
			if tt.reader {
				f = ForReader
			}
			loc, err := f(tt.dir, tt.home, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if loc.Dir != filepath.FromSlash(tt.wantDir) || loc.Source != tt.wantSrc || loc.ConfigHome != filepath.Dir(loc.Dir) {
				t.Errorf("got %+v, want %s from %s", loc, tt.wantDir, tt.wantSrc)
			}
		})
	}
}
