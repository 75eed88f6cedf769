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
