package jqrun

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/statusfile"
)

func TestDecodeNumbers(t *testing.T) {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	for _, tt := range []struct {
		in   string
		want any
	}{
		{`1`, 1}, {`-7`, -7}, {`1.5`, 1.5}, {`1e3`, 1000.0},
		{`123456789012345678901234567890`, big1},
		{`[1,"a",null,true,{"k":2}]`, []any{1, "a", nil, true, map[string]any{"k": 2}}},
	} {
		got, err := Decode([]byte(tt.in), false)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decode(%s) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `1 2`, `{} {}`, `"a`} {
		if _, err := Decode([]byte(bad), false); err == nil {
			t.Errorf("Decode(%q): no error", bad)
		}
	}
	if _, ok := DecodeObject([]byte(`[1]`)); ok {
		t.Error("DecodeObject accepted an array")
	}
}

// FuzzDecodeObject: whatever a status file holds, the decoded object's
// strings and keys are sanitized (no ESC, C0 or C1 control), and the
// object is the same JSON value as encoding/json's, sanitized.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{"state":"idle","\u001b[0mstate":"blocked"}`,
		`{"task":{"title":"a\u009b31mb"},"n":[1,2.5,1e400,-0]}`,
		`{"k\u0001":1,"k\u0002":2}`,
		`{"a":"\xff\xfe"}`,
		`[]`, `{}`, `{"a":1}{"b":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := DecodeObject(data)
		var ref any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // 1e400 is a JSON number, not a float64
		isObject := dec.Decode(&ref) == nil && reflect.TypeOf(ref) == reflect.TypeOf(map[string]any{})
		if _, err := dec.Token(); err != io.EOF {
			isObject = false
		}
		if ok != isObject {
			t.Fatalf("DecodeObject ok=%v, encoding/json object=%v for %q", ok, isObject, data)
		}
		if !ok {
			return
		}
		var walk func(any)
		clean := func(s string) {
			if statusfile.SanitizeText(s) != s || strings.ContainsAny(s, "\x1b\x00\u009b") {
				t.Fatalf("unsanitized string %q in %q", s, data)
			}
		}
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				clean(v)
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					clean(k)
					walk(x)
				}
			}
		}
		walk(v)
	})
}
