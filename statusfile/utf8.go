package statusfile

import "github.com/agentstatus/agentstatus/internal/jsonstr"

// decodeRune and decodeRuneBytes decode UTF-8 as SPEC.md C6 says: one
// U+FFFD per maximal subpart of an ill-formed sequence (see
// [jsonstr.DecodeRune]). The decoder, the sanitizer and the encoder share
// this rule.
func decodeRune(s string) (rune, int) { return jsonstr.DecodeRune(s) }

func decodeRuneBytes(b []byte) (rune, int) { return jsonstr.DecodeRuneBytes(b) }
