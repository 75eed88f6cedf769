package gojqrun

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/agentstatus/agentstatus/internal/jsonstr"
)

// appendJSON appends v as gojq.Marshal writes it, as the jq command line
// does: keys sorted, NaN as null, infinities as the largest floats, \b and
// \f in strings, DEL and invalid UTF-8 escaped, '<', '>', '&', U+2028 and
// U+2029 as they are. Marshal grows a new buffer for every result; this
// appends to the caller's, which statusls --jq '.[]' reuses for each of
// thousands of sessions.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case float64:
		return appendFloat(b, v)
	case *big.Int:
		return v.Append(b, 10)
	case json.Number:
		return append(b, string(v)...)
	case string:
		return jsonstr.AppendJQ(b, v)
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, x)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		keys := slices.AppendSeq(make([]string, 0, len(v)), maps.Keys(v))
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonstr.AppendJQ(b, k), ':')
			b = appendJSON(b, v[k])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("invalid type: %[1]T (%[1]v)", v))
}

// appendFloat appends f as encoding/json does, but for NaN and the
// infinities.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) {
		return append(b, "null"...)
	}
	f = min(max(f, -math.MaxFloat64), math.MaxFloat64)
	if x := math.Abs(f); x != 0 && x < 1e-6 || x >= 1e21 {
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// e-09 becomes e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}
