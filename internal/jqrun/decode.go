package jqrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/agentstatus/agentstatus/statusfile"
)

// Decode decodes data, exactly one JSON value, into what the engine
// computes with: objects as map[string]any, arrays as []any, integers as
// int (or *big.Int when they do not fit), other numbers as float64, as
// gojq's own decoder does. With sanitize set, every string, object keys
// included, is sanitized as for display (SPEC.md §7 steps 2–3), so that a
// filter printing raw strings cannot print escape sequences from the data.
//
// Decode accepts what encoding/json accepts and decodes it alike, strings
// included (invalid UTF-8 and lone surrogates become U+FFFD), but without
// its reflection and copies: statusls --jq decodes every session it lists.
// On invalid JSON, encoding/json words the error.
func Decode(data []byte, sanitize bool) (any, error) {
	v, ok := parse(data)
	if !ok {
		return decodeStd(data, sanitize)
	}
	if sanitize {
		v = convert(v, true)
	}
	return v, nil
}

// decodeStd is [Decode] through encoding/json.
func decodeStd(data []byte, sanitize bool) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return convert(v, sanitize), nil
}

// DecodeObject decodes data as [Decode] does, sanitizing, and reports
// whether it is exactly one JSON object.
func DecodeObject(data []byte) (any, bool) {
	v, err := Decode(data, true)
	_, ok := v.(map[string]any)
	return v, ok && err == nil
}

// convert turns numbers into what gojq computes with and, with sanitize
// set, sanitizes every string.
func convert(v any, sanitize bool) any {
	switch v := v.(type) {
	case string:
		if sanitize {
			return statusfile.SanitizeText(v)
		}
		return v
	case json.Number:
		return number(string(v))
	case []any:
		for i := range v {
			v[i] = convert(v[i], sanitize)
		}
		return v
	case map[string]any:
		if !sanitize {
			for k, x := range v {
				v[k] = convert(x, false)
			}
			return v
		}
		// Keys that sanitizing changes must not take the place of a key
		// the data really has ("\u001b[0mstate" must not become
		// "state"), and keys that sanitize alike must give the same
		// result at every run: clean keys first, then the others in
		// order of their raw bytes, each only where its key is still free.
		out := make(map[string]any, len(v))
		var unclean []string
		for k, x := range v {
			if statusfile.SanitizeText(k) != k {
				unclean = append(unclean, k)
				continue
			}
			out[k] = convert(x, true)
		}
		slices.Sort(unclean)
		for _, k := range unclean {
			sk := statusfile.SanitizeText(k)
			if _, taken := out[sk]; !taken {
				out[sk] = convert(v[k], true)
			}
		}
		return out
	}
	return v
}

// number converts a JSON number as gojq's own decoder does.
func number(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil && i == int64(int(i)) {
			return int(i)
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return b
		}
	}
	// Out of range, ParseFloat returns ±Inf, which gojq prints as the
	// largest float, like jq.
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
