package statusfile

import (
	"crypto/sha256"
	"encoding/hex"
)

// FileName returns the name of the status file of session: the lowercase hex
// SHA-256 of the session id's UTF-8 bytes, plus ".json". It does not
// validate the id; see [ValidateSession].
func FileName(session string) string {
	sum := sha256.Sum256([]byte(session))
	var b [sha256.Size*2 + len(".json")]byte
	hex.Encode(b[:], sum[:])
	copy(b[sha256.Size*2:], ".json")
	return string(b[:])
}

// IsStatusName reports whether name has the form of a status file name:
// 64 lowercase hex digits followed by ".json". Readers ignore every other
// name.
func IsStatusName(name string) bool {
	if len(name) != 69 || name[64:] != ".json" {
		return false
	}
	for i := 0; i < 64; i++ {
		if !lowerHex[name[i]] {
			return false
		}
	}
	return true
}

var lowerHex = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
}
