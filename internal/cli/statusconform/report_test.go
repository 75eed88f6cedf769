package statusconform

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/conformance"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

func TestParseImplementation(t *testing.T) {
	tests := []struct {
		in   string
		name string
		argv []string
		err  string
	}{
		{in: "mine=./reader --json", name: "mine", argv: []string{"./reader", "--json"}},
		{in: " my reader = python3  -S r.py ", name: "my reader", argv: []string{"python3", "-S", "r.py"}},
		{in: "a=b=c", name: "a", argv: []string{"b=c"}},
		{in: "no-equals", err: "want NAME=CMD"},
		{in: "=cmd", err: "name is empty"},
		{in: "name=", err: "no command"},
		{in: "name=   ", err: "no command"},
		{in: "a|b=cmd", err: "Markdown"},
		{in: "a\x1bb=cmd", err: "Markdown"},
		{in: "a`b=cmd", err: "Markdown"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			name, argv, err := parseImplementation(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || name != tt.name || !slices.Equal(argv, tt.argv) {
				t.Errorf("got %q %q %v, want %q %q", name, argv, err, tt.name, tt.argv)
			}
		})
	}
}

func FuzzParseImplementation(f *testing.F) {
	for _, s := range []string{"mine=./reader --json", "=x", "a|b=c", "x=", "é=ß \t y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, argv, err := parseImplementation(s)
		if err != nil {
			return
		}
		if name == "" || strings.ContainsAny(name, "|`\\\n\r") || len(argv) == 0 {
			t.Fatalf("%q: accepted name %q argv %q", s, name, argv)
		}
		for _, a := range argv {
			if a == "" || strings.ContainsAny(a, " \t\n") {
				t.Fatalf("%q: argument %q", s, a)
			}
		}
		// What the table shows is one line of a Markdown row.
		var b bytes.Buffer
		(&Table{Rows: []Row{{Implementation: name, Role: "reader", Level: "core", Command: strings.Join(argv, " ")}}}).WriteMarkdown(&b)
		if !strings.Contains(b.String(), "| "+name+" | reader | core |") {
			t.Fatalf("%q: the row does not show the name:\n%s", s, b.String())
		}
	})
}

// A reader that prints nothing and exits 0 passes the empty directory, and
// fails every case with sessions and every refused directory (R23): the
// table says so, level by level.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	md, js := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json")
	code, _, stderr := run(t, "report", "--no-builtin", "--reader", "empty="+emptyReader(t)+" -empty-reader",
		"--run", "basic/*", "--run", "dir/symlink-refused", "--markdown", md, "--json", js)
	if code != base.ExitError {
		t.Fatalf("exit %d, want %d (the empty reader fails); stderr:\n%s", code, base.ExitError, stderr)
	}
	var table Table
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	if table.Vectors != listing(t, conformance.RunReader, "hardened").Vectors || len(table.Rows) != 2 {
		t.Fatalf("table %+v", table)
	}
	hard := table.Rows[1]
	if hard.Level != "hardened" || hard.Passed != 1 || hard.Failed != 5 || !slices.Contains(hard.Failures, "dir/symlink-refused") {
		t.Errorf("hardened row %+v, want 1 passed (basic/empty-directory) and 5 failed, dir/symlink-refused among them", hard)
	}
	if core := table.Rows[0]; core.Level != "core" || core.Passed != 1 || core.Failed != 4 {
		t.Errorf("core row %+v, want the basic cases only", core)
	}
	text, _ := os.ReadFile(md)
	var want bytes.Buffer
	table.WriteMarkdown(&want)
	if !bytes.Equal(text, want.Bytes()) {
		t.Errorf("the Markdown is not the JSON's table:\n%s", text)
	}
	for _, bad := range [][]string{
		{"report", "--no-builtin"},
		{"report", "--no-builtin", "--reader", "x"},
		{"report", "extra"},
		{"report", "--timeout-scale", "0.5", "--no-builtin", "--reader", "a=b"},
	} {
		if code, _, _ := run(t, bad...); code != base.ExitUsage {
			t.Errorf("%q: exit %d, want %d", bad, code, base.ExitUsage)
		}
	}
}

// The committed table (conformance/RESULTS.md, from results.json) is of
// the vectors and checks of this tree: a changed vector or check makes it
// stale until statusconform report is run again. Running every
// implementation takes minutes, so this test checks what it can cheaply:
// the digest, that every row counts every case or check of its level, and
// that the Markdown is the JSON's.
func TestCommittedResults(t *testing.T) {
	root := filepath.Join("..", "..", "..", "conformance")
	data, err := os.ReadFile(filepath.Join(root, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table Table
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	const regen = "regenerate it: go build -o /tmp/bin ./cmd/... && /tmp/bin/statusconform report --bin /tmp/bin --markdown conformance/RESULTS.md --json conformance/results.json"
	if digest := listing(t, conformance.RunReader, "hardened").Vectors; table.Vectors != digest {
		t.Fatalf("conformance/results.json is of vectors %s, the suite's are %s: %s", table.Vectors, digest, regen)
	}
	count := map[string]int{}
	for _, lv := range []string{"core", "hardened"} {
		count["reader "+lv] = len(listing(t, conformance.RunReader, lv).Results)
		count["publisher "+lv] = len(listing(t, conformance.RunPublisher, lv).Results)
	}
	roles := map[string]bool{}
	for _, r := range table.Rows {
		n := r.Passed + r.Failed + r.ExpectedFailures + r.UnexpectedPasses + r.Skipped
		if want := count[r.Role+" "+r.Level]; n != want || r.Vectors != table.Vectors {
			t.Errorf("%s %s %s: %d results of vectors %s, want %d of %s: %s", r.Implementation, r.Role, r.Level, n, r.Vectors, want, table.Vectors, regen)
		}
		roles[r.Implementation+" "+r.Role] = true
	}
	for _, want := range []string{"statusls reader", "statuspub serve publisher", "Python reader", "Python publisher"} {
		if !roles[want] {
			t.Errorf("the table has no row for %s", want)
		}
	}
	md, err := os.ReadFile(filepath.Join(root, "RESULTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	table.WriteMarkdown(&b)
	if !bytes.Equal(md, b.Bytes()) {
		t.Errorf("conformance/RESULTS.md is not what results.json renders to: %s", regen)
	}
}

// listing is what run lists at level: the cases or checks, and the digest
// of the suite.
func listing(t *testing.T, run func(context.Context, conformance.Options) (*conformance.Report, error), level string) *conformance.Report {
	t.Helper()
	rep, err := run(context.Background(), conformance.Options{Level: level, List: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
