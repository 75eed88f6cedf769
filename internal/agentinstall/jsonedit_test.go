package agentinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParseJSON: whatever is JSON parses, and writing it back (untouched
// or re-encoded) gives the same JSON value.
func FuzzParseJSON(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte(`{"a":[1,2.50,{"b":null}],"a":"dup","\u00e9":"\u2028"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		if json.Unmarshal(data, &want) != nil {
			if _, err := parseJSON("f", data); err == nil {
				t.Fatal("invalid JSON parsed")
			}
			return
		}
		n, err := parseJSON("f", data)
		if err != nil {
			t.Fatal(err)
		}
		for _, dirty := range []bool{false, true} {
			if dirty {
				markDirty(n)
			}
			var got any
			if err := json.Unmarshal(n.encode(), &got); err != nil {
				t.Fatalf("dirty=%v: %s does not parse: %v", dirty, n.encode(), err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("dirty=%v: %v, want %v", dirty, got, want)
			}
		}
	})
}

func markDirty(n *jnode) {
	n.dirty = true
	for _, it := range n.items {
		markDirty(it.val)
	}
}
