package safefs

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"strings"
)

// maxPID is the largest pid a record may carry (SPEC.md C4).
const maxPID = 1<<31 - 1

// IsStatusName reports whether name has the form of a status file name:
// 64 lowercase hex digits followed by ".json". Readers ignore every other
// name.
func IsStatusName(name string) bool {
	return len(name) == 69 && name[64:] == ".json" && lowerHex(name[:64])
}

// lowerHex reports whether s is lowercase hex digits only. A table, not
// strings.Trim: IsStatusName runs on every entry of every listing, and
// the table is about 3 times faster (29-37 against 91-97 ns a name).
func lowerHex(s string) bool {
	for i := range len(s) {
		if !isLowerHex[s[i]] {
			return false
		}
	}
	return true
}

var isLowerHex = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
}

// TempSuffix ends the name of a publisher's temporary file.
const TempSuffix = ".tmp"

// TempName returns a name for a temporary file of the status file name
// (see statusfile.FileName) written by process pid (SPEC.md P8):
// ".<hash>.<pid>.<random>.tmp", where <hash> is name without ".json" and
// <random> 16 lowercase hex digits. The dot keeps readers away (R3); the
// hash and pid say whose it is, so that the next publisher of the session
// and prune can remove it once its writer is gone.
func TempName(name string, pid int) string {
	var r [8]byte
	binary.LittleEndian.PutUint64(r[:], rand.Uint64())
	return "." + strings.TrimSuffix(name, ".json") + "." + strconv.Itoa(pid) + "." + hex.EncodeToString(r[:]) + TempSuffix
}

// ParseLegacyTempName reports whether tmp is the name of a temporary file
// of the writer earlier versions of this toolkit used (renameio): "." and
// a status file name, then the 1 to 10 decimal digits os.CreateTemp adds.
// Such a name says nothing of its writer; prune removes the file once it
// is old (SPEC.md D5). It returns the status file's name.
func ParseLegacyTempName(tmp string) (name string, ok bool) {
	if len(tmp) < 1+69+1 || len(tmp) > 1+69+10 || tmp[0] != '.' || !IsStatusName(tmp[1:70]) {
		return "", false
	}
	if strings.Trim(tmp[70:], "0123456789") != "" {
		return "", false
	}
	return tmp[1:70], true
}

// ParseTempName splits a name made by [TempName] into the status file's
// name and the writer's pid. ok is false for every other name.
func ParseTempName(tmp string) (name string, pid int, ok bool) {
	rest, found := strings.CutSuffix(tmp, TempSuffix)
	if !found || len(rest) < 1+64+1+1+1+16 || rest[0] != '.' || rest[65] != '.' {
		return "", 0, false
	}
	name = rest[1:65] + ".json"
	if !IsStatusName(name) {
		return "", 0, false
	}
	mid := rest[66:]
	dot := strings.IndexByte(mid, '.')
	if dot < 1 || len(mid)-dot-1 != 16 || !lowerHex(mid[dot+1:]) {
		return "", 0, false
	}
	pid, err := strconv.Atoi(mid[:dot])
	if err != nil || pid <= 0 || pid > maxPID || mid[0] == '+' || mid[0] == '0' {
		return "", 0, false
	}
	return name, pid, true
}
