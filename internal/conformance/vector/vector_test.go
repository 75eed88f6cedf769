package vector

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// testdata is the suite's data, as package conformance builds it in.
var testdata = os.DirFS(filepath.Join("..", "..", "..", "conformance", "testdata"))

func cases() ([]*Case, error) { return Load(testdata, "reader") }

func TestParseCaseRejects(t *testing.T) {
	const head = "id: x/y\nlevel: core\nrules: R1\nrequirement: R1. A missing status directory is an empty listing, not an error.\nnow: 2026-07-17T12:35:00.000Z\nexpect: sessions\n"
	tests := []struct{ name, text, want string }{
		{"id differs", strings.Replace(head, "x/y", "x/z", 1) + "-- expected --\n", "is not the file's path"},
		{"no expected", head, "no '-- expected --'"},
		{"unknown key", head + "colour: red\n-- expected --\n", "unknown key"},
		{"bad level", strings.Replace(head, "core", "medium", 1) + "-- expected --\n", "level must be"},
		{"bad now", strings.Replace(head, ".000Z", "Z", 1) + "-- expected --\n", "now must be"},
		{"bad mode", head + "-- file a mode=644 --\n-- expected --\n", "mode must be"},
		{"size too small", head + "-- file a size=3 --\nabcdef\n-- expected --\n", "longer than size"},
		{"dangling symlink", head + "-- symlink a -> b --\n-- expected --\n", "no entry"},
		{"error with sessions", strings.Replace(head, "sessions", "error", 1) +
			`-- expected --` + "\n" + `{"session":"s","agent":null,"state":"idle","pid":null,"cwd":null,"title":null}` + "\n", "lists no sessions"},
		{"expected key missing", head + "-- expected --\n{\"session\":\"s\",\"state\":\"idle\"}\n", "no \"agent\" key"},
		{"twice", head + "-- file a --\n-- file a --\n-- expected --\n", "listed twice"},
		{"not-directory with sessions expected", head + "dir: not-directory=file\n-- expected --\n", "not-directory"},
		{"not-directory with entries", strings.Replace(head, "sessions", "error", 1) + "dir: not-directory=fifo\n-- file a --\n-- expected --\n", "not-directory"},
		{"not-directory and missing", strings.Replace(head, "sessions", "error", 1) + "dir: not-directory=file missing\n-- expected --\n", "not-directory"},
		{"not-directory of a socket", strings.Replace(head, "sessions", "error", 1) + "dir: not-directory=socket\n-- expected --\n", "unknown dir directive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x/y", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseCaseDirectives(t *testing.T) {
	const text = "id: a/b\nlevel: hardened\nrules: R6\nrequirement: R6. x\nnow: 2026-07-17T12:35:00.000Z\nexpect: sessions\ndir: mode=0750 parent-symlink\nruns: 3\n" +
		"-- file f size=10 --\n{}\n-- file g bytes=escaped mode=0644 --\na\\xffb\n-- fifo p --\n-- expected --\n"
	c, err := Parse("a/b", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir.Mode != 0o750 || !c.Dir.ParentSymlink || c.Runs != 3 {
		t.Errorf("dir %+v runs %d", c.Dir, c.Runs)
	}
	if got := string(c.Entries[0].Data); got != "{}       \n" {
		t.Errorf("size=10 gives %q", got)
	}
	if got := string(c.Entries[1].Data); got != "a\xffb\n" || c.Entries[1].Mode != 0o644 {
		t.Errorf("escaped gives %q mode %v", got, c.Entries[1].Mode)
	}
	if c.Entries[2].Kind != FIFO {
		t.Errorf("fifo: %+v", c.Entries[2])
	}
	// Load insists on .txt files and reports every broken one.
	fsys := fstest.MapFS{"r/a/b.txt": {Data: []byte(text)}, "r/a/c.md": {Data: []byte("x")}}
	if _, err := Load(fsys, "r"); err == nil || !strings.Contains(err.Error(), "not a vector") {
		t.Errorf("Load: %v", err)
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := cases(); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzParseCase: the vector parser never panics, and what it accepts keeps
// the invariants the harness relies on.
func FuzzParse(f *testing.F) {
	cases, err := cases()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		if strings.HasPrefix(c.ID, "dir/") || strings.HasPrefix(c.ID, "sanitize/title-esc") {
			data, err := fs.ReadFile(testdata, "reader/"+c.ID+".txt")
			if err == nil {
				f.Add(c.ID, data)
			}
		}
	}
	f.Add("x/y", []byte("id: x/y\nlevel: core\nrules: R2\nrequirement: R2. x\nnow: 2026-07-17T12:35:00.000Z\nexpect: error\ndir: not-directory=fifo\n-- expected --\n"))
	f.Fuzz(func(t *testing.T, id string, data []byte) {
		c, err := Parse(id, data)
		if err != nil {
			return
		}
		if c.Expect != ExpectSessions && c.Expect != ExpectError {
			t.Fatalf("expect %q", c.Expect)
		}
		if c.Expect == ExpectError && len(c.Sessions) > 0 {
			t.Fatal("expect: error with sessions")
		}
		if c.Dir.NotDir != "" && (len(c.Entries) > 0 || c.Dir.Missing || c.Dir.Symlink || c.Expect != ExpectError ||
			c.Dir.NotDir != File && c.Dir.NotDir != FIFO) {
			t.Fatalf("accepted dir %+v with %d entries, expect %s", c.Dir, len(c.Entries), c.Expect)
		}
	})
}
