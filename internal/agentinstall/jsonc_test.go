package agentinstall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// install gemini edits a settings.json with comments, as Gemini CLI reads
// it, keeping every comment and the layout: the golden files were checked
// with Gemini CLI 0.61.0's own reading (strip-json-comments, then
// JSON.parse). A second install changes nothing, and uninstall gives the
// file back, byte for byte where it said so.
func TestGeminiSettingsWithComments(t *testing.T) {
	tests := []struct {
		file  string
		exact bool   // uninstall gives back the very bytes
		gone  string // a comment uninstall removes with its member
	}{
		{"line-comment.json", true, ""},
		{"comments-and-hooks.json", true, ""},
		{"empty-object.json", true, ""},
		{"empty-with-comment.json", false, ""}, // {"/* nothing */\n}
		{"one-line.json", false, ""},           // one more space before }
		{"crlf.json", true, ""},
		// Its empty "hooks" goes, with the comment on its line, as the
		// plain JSON edit removes an emptied "hooks".
		{"comment-marks-in-strings.json", false, "// empty"},
		{"tabs-and-block-comment.json", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("testdata", "jsonc", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			h, getenv := home(t, map[string]string{".gemini/settings.json": string(orig)})
			p := filepath.Join(h, ".gemini", "settings.json")
			install(t, Options{Agent: "gemini", Getenv: getenv})
			got, _ := os.ReadFile(p)
			golden(t, "jsonc-"+tt.file, got)
			for _, c := range comments(orig) {
				if !bytes.Contains(got, c) {
					t.Errorf("the comment %q went", c)
				}
			}
			if !bytes.Contains(orig, []byte("\r\n")) && bytes.Contains(got, []byte("\r")) ||
				bytes.Contains(orig, []byte("\r\n")) && bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
				t.Error("line ends not as the file's")
			}
			if cs, err := Plan(Options{Agent: "gemini", Getenv: getenv}); err != nil || cs[0].Changed() {
				t.Errorf("a second install: %v %+v", err, cs)
			}
			install(t, Options{Agent: "gemini", Getenv: getenv, Uninstall: true})
			back, _ := os.ReadFile(p)
			if tt.exact && !bytes.Equal(back, orig) {
				t.Errorf("uninstall gave\n%s\nwant\n%s", back, orig)
			}
			for _, c := range comments(orig) {
				if bytes.Contains(back, c) == (string(c) == tt.gone) {
					t.Errorf("uninstall: the comment %q: kept %v", c, !bytes.Contains(back, c))
				}
			}
		})
	}
}

// comments returns the comments of a file with comments.
func comments(data []byte) [][]byte {
	_, kind := stripComments(data)
	var out [][]byte
	for i := 0; i < len(data); {
		if kind[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(data) && kind[j] == kind[i] {
			j++
		}
		out = append(out, data[i:j])
		i = j
	}
	return out
}

// What Gemini CLI 0.61.0 accepts: each input was given to its own
// strip-json-comments and JSON.parse (node 20), which accepted it or
// threw; the parser here must agree.
func TestParseSettingsAsGemini(t *testing.T) {
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"line comment", "{\"a\":1 // c\n}", true},
		{"block comment between key and colon", `{"a"/* c */:1}`, true},
		{"block comment", `{"a":/* c */1}`, true},
		{"trailing comma", `{"a":1,}`, false},
		{"trailing comma in an array", `{"a":[1,]}`, false},
		{"no-break space in a comment", "{\"a\":1 // x\u00a0y\n}", false},
		{"vertical tab in a comment", "{\"a\":1 // x\vy\n}", false},
		{"U+2028 in a comment", "{\"a\":1 /* \u2028 */}", false},
		{"unterminated block comment at the end", `{"a":1} /* open`, true},
		{"line comment at the end without a newline", `{"a":1} // end`, true},
		{"comment marks in a string", `{"a":"//not /* a comment"}`, true},
		{"escaped backslash before the quote", "{\"a\":\"x\\\\\"//c\n}", true},
		{"escaped quote in a string", `{"a":"x\"//not a comment"}`, true},
		{"CRLF after a line comment", "{\"a\":1 // c\r\n}", true},
		{"byte order mark", "\ufeff{\"a\":1}", false},
		{"a slash alone", `{"a":1 / }`, false},
		{"a comment end alone", `{"a":1 */ }`, false},
		{"comments only", "// nothing\n", false},
		{"an unterminated comment eats the brace", `{"a":1 /* }`, false},
		{"invalid UTF-8 in a comment", "{\"a\":1 // \xff\n}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSettings("f", []byte(tt.data), jsonComments)
			if (err == nil) != tt.ok {
				t.Errorf("parse: %v, Gemini CLI accepts it: %v", err, tt.ok)
			}
		})
	}
}

// FuzzJSONC: a file parses as JSON with comments exactly when its
// comments blanked are JSON; unedited, it is written back byte for byte;
// installed and uninstalled, it has the value the plain JSON edit gives
// the same file without its comments, keeps every comment when installing,
// and still parses.
func FuzzJSONC(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "jsonc", "*.json"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	zed, _ := filepath.Glob(filepath.Join("testdata", "zed", "*.json"))
	for _, file := range append(append(files, more...), zed...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("{\"hooks\":{\"AfterTool\":[ /* a */ {\"hooks\":[]} // b\n]}}"))
	f.Add([]byte("[1, /* x */ 2]"))
	// Trailing commas: Zed's syntax only.
	f.Add([]byte("{\"agent_servers\":{\"gemini\":{\"env\":{},},},}"))
	f.Add([]byte("{\n  \"a\": [1, 2,], // c\n  \"b\": {\"c\": 1 /* d */ ,},\n}\n"))
	f.Add([]byte("{\"agent_servers\":{\"x\":{\"command\":\"statuspub\",\"args\":[\"acp\",\"--\",\"gemini\",],},}}"))
	f.Add([]byte("[,]"))
	spec := mustSpec("gemini")
	plain := spec
	plain.jsonc = false
	f.Fuzz(func(t *testing.T, data []byte) {
		zedRoundTrip(t, data)
		stripped, kind := stripComments(data)
		if len(stripped) != len(data) || len(kind) != len(data) {
			t.Fatal("stripping moved bytes")
		}
		doc, err := parseSettings("f", data, jsonComments)
		if (err == nil) != json.Valid(stripped) {
			t.Fatalf("parse error %v, but json.Valid(stripped) = %v", err, json.Valid(stripped))
		}
		if err != nil || !unedited(t, doc, data) {
			return
		}
		o := Options{Command: "statuspub"}
		got, err1 := editHooks("f", data, spec, o)
		want, err2 := editHooks("f", stripped, plain, o)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("install: %v; plain JSON: %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		sameValue(t, "install", got, want)
		for _, c := range comments(data) {
			if !bytes.Contains(got, c) {
				t.Fatalf("install lost the comment %q: %q", c, got)
			}
		}
		o.Uninstall = true
		back, err1 := editHooks("f", got, spec, o)
		wantBack, err2 := editHooks("f", want, plain, o)
		if err1 != nil || err2 != nil {
			t.Fatalf("uninstall: %v; plain JSON: %v", err1, err2)
		}
		sameValue(t, "uninstall", back, wantBack)
	})
}

// unedited fails unless doc, parsed from data, writes data back byte for
// byte, and reports whether it is an object, the only document an install
// edits.
func unedited(t *testing.T, doc jsonDoc, data []byte) bool {
	t.Helper()
	if !bytes.Equal(doc.encode(), data) {
		t.Fatalf("unedited: %q, want %q", doc.encode(), data)
	}
	return doc.root.kind == jObject
}

// sameValue fails unless got (with comments) and want (plain JSON) hold
// the same JSON value.
func sameValue(t *testing.T, what string, got, want []byte) {
	t.Helper()
	g, _ := stripComments(got)
	// Numbers as written: 1E700 is valid JSON, too large for a float64.
	decode := func(b []byte) (v any, err error) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		err = d.Decode(&v)
		return v, err
	}
	gv, err := decode(g)
	if err != nil {
		t.Fatalf("%s: the result does not parse: %v\n%s", what, err, got)
	}
	wv, err := decode(want)
	if err != nil {
		t.Fatalf("%s: the plain result does not parse: %v", what, err)
	}
	if !reflect.DeepEqual(gv, wv) {
		t.Fatalf("%s: %s\nwant the value of\n%s", what, got, want)
	}
}

// zedRoundTrip: Zed's syntax takes every file Gemini CLI's takes, writes
// an unedited file back byte for byte, and install zed then uninstall
// leave a file that parses, keeps every comment, and has the value it
// had.
func zedRoundTrip(t *testing.T, data []byte) {
	doc, err := parseSettings("f", data, zedJSON)
	if _, gerr := parseSettings("f", data, jsonComments); gerr == nil && err != nil {
		t.Fatalf("Zed's syntax refuses what Gemini CLI's takes: %v", err)
	}
	if err != nil || !unedited(t, doc, data) {
		return
	}
	agent, _ := zedAgentFor("gemini")
	restore := zedRestore{Entries: map[string]*zedEntry{}}
	var notes []string
	getenv := func(string) string { return "" }
	got, err := wrapZed("f", data, true, agent, "/bin/statuspub", getenv, &restore, &notes)
	if err != nil {
		return // agent_servers or the entry is not an object
	}
	if _, err := parseSettings("f", got, zedJSON); err != nil {
		t.Fatalf("install: %v\n%q", err, got)
	}
	for _, c := range comments(data) {
		if !bytes.Contains(got, c) {
			t.Fatalf("install lost the comment %q: %q", c, got)
		}
	}
	back, err := unwrapZed("f", got, true, agent, &restore)
	if err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if _, err := parseSettings("f", back, zedJSON); err != nil && len(bytes.TrimSpace(back)) > 0 {
		t.Fatalf("uninstall: %v\n%q", err, back)
	}
	if servers := doc.root.get("agent_servers"); servers != nil {
		for _, it := range servers.items {
			if argv, ok := acpArgs(it.val); ok && agent.runs(argv) {
				return // wrapped already: uninstall unwraps it
			}
		}
	}
	sameValue(t, "uninstall", zedPlain(back), zedPlain(data))
}

// zedPlain is Zed's settings as plain JSON: comments and trailing commas
// blanked.
func zedPlain(data []byte) []byte {
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}")
	}
	s, _ := stripComments(data)
	blankTrailingCommas(s)
	return s
}
