package jqrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
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

// FuzzDecodeAlike: Decode's own parser accepts exactly what encoding/json
// accepts, and decodes it to the same value, sanitized or not.
func FuzzDecodeAlike(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0,2.5e-3,1E+2,123456789012345678901234567890,true,false,null],"b":{}}`,
		`"\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00\ud800\udc00\ud800\u0041\udc00\ud800"`,
		`"\uD83D\uDE00\ud83d\ud83d\ude00\ud800\\u0041"`,
		"\"a\xffb\xe2\x82c\xed\xa0\x80\xf0\x9f\x98\"",
		" [ ] ", `{ }`, "\t{\"k\"\n:\r1 }\n",
		`01`, `1.`, `.5`, `-`, `1e`, `+1`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`,
		`"\u12"`, `"\x"`, "\"a\x01\"", `tru`, `nul`, `truex`, `[1 2]`, `"abc`,
		`{"a":1,"a":2}`, `{"\u001b[0mstate":"x","state":"y"}`, "{\"a\x9b\":1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parse(data)
		want, err := decodeStd(data, false)
		if ok != (err == nil) {
			t.Fatalf("parser ok=%v, encoding/json error %v, for %q", ok, err, data)
		}
		if !ok {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parser: %#v, encoding/json: %#v, for %q", got, want, data)
		}
		got, _ = Decode(data, true)
		want, _ = decodeStd(data, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("sanitized: Decode %#v, encoding/json %#v, for %q", got, want, data)
		}
	})
}

// TestDecodeDepth: encoding/json's limit on nesting, and its error.
func TestDecodeDepth(t *testing.T) {
	for _, n := range []int{jsonstr.MaxDepth, jsonstr.MaxDepth + 1} {
		data := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		_, ok := parse(data)
		_, err := decodeStd(data, false)
		if ok != (err == nil) || ok != (n <= jsonstr.MaxDepth) {
			t.Errorf("depth %d: parser ok=%v, encoding/json error %v", n, ok, err)
		}
		if _, err2 := Decode(data, false); fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Errorf("depth %d: Decode error %v, want %v", n, err2, err)
		}
	}
}
