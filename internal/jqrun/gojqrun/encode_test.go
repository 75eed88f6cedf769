package gojqrun

import (
	"bytes"
	"math"
	"math/big"
	"testing"

	"github.com/itchyny/gojq"

	"github.com/agentstatus/agentstatus/internal/jqrun"
)

// FuzzAppendJSON: appendJSON writes what gojq.Marshal writes, for decoded
// JSON, any string (a filter can make invalid UTF-8, with @base64d) and
// any float.
func FuzzAppendJSON(f *testing.F) {
	f.Add([]byte(`{"b":[1,-0,2.5e-3,1E+2,123456789012345678901234567890,true,false,null],"a":{},"":"\u007f<&>\u2028"}`), "a\x00\x1f\x7f\"\\\b\f\n\r\t\xff\xe2\x82é😀\ufffd", 1e-7)
	for _, x := range []float64{0, math.Copysign(0, -1), 1e21, 1e20, 1e-6, 123.456, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, 5e-324} {
		f.Add([]byte(`[]`), "", x)
	}
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	f.Fuzz(func(t *testing.T, data []byte, s string, x float64) {
		values := []any{s, x, []any{s, x, nil, true, 7, huge}, map[string]any{s: x, "k": []any{}, "l": map[string]any{}}}
		if v, err := jqrun.Decode(data, false); err == nil {
			values = append(values, v)
		}
		for _, v := range values {
			want, err := gojq.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendJSON([]byte("x"), v); !bytes.Equal(got[1:], want) || got[0] != 'x' {
				t.Fatalf("appendJSON(%#v) = %q, gojq.Marshal %q", v, got, want)
			}
		}
	})
}
