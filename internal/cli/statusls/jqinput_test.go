package statusls

import "testing"

// Sanitizing object keys for --jq never lets a key take the place of one
// the file really has, and keys that sanitize alike give the same value at
// every run.
func TestJQInputKeys(t *testing.T) {
	v, ok := jqInput([]byte(`{"state":"idle","\u001b[0mstate":"blocked","k\u0003":3,"k\u0001":1,"k\u0002":2}`))
	if !ok {
		t.Fatal("not read")
	}
	m := v.(map[string]any)
	for i := 0; i < 20; i++ { // map order varies from run to run
		again, _ := jqInput([]byte(`{"k\u0002":2,"k\u0003":3,"k\u0001":1,"state":"idle","\u001b[0mstate":"blocked"}`))
		if again.(map[string]any)["k "] != m["k "] {
			t.Fatalf("colliding keys gave %v, then %v", m["k "], again.(map[string]any)["k "])
		}
	}
	if m["state"] != "idle" {
		t.Errorf(`.state = %v, want "idle": a key with an escape sequence took its place`, m["state"])
	}
	if m["k "] != 1 {
		t.Errorf(`.["k "] = %v, want 1 (the first raw key in byte order)`, m["k "])
	}
}
