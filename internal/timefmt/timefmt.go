// Package timefmt writes and reads the timestamps of status records
// (SPEC.md T1): RFC 3339 in UTC with milliseconds, as JavaScript's
// Date.prototype.toISOString writes them.
package timefmt

import "time"

// Layout is how updatedAt is written: UTC with milliseconds, as
// JavaScript's Date.prototype.toISOString.
const Layout = "2006-01-02T15:04:05.000Z"

// Parse parses an RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS, optional
// fraction of any length (read to the nanosecond), then Z or ±HH:MM. "T" and
// "Z" may be lowercase, as RFC 3339 allows. It takes strings and bytes (the
// decoder parses updatedAt in place, without making a string of it).
func Parse[T string | []byte](s T) (time.Time, bool) {
	if len(s) < 20 {
		return time.Time{}, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for j := i; j < i+n; j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	min, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) ||
		s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59 {
		return time.Time{}, false
	}
	i := 19
	nsec := 0
	if s[i] == '.' {
		i++
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if i-start < 9 {
				nsec = nsec*10 + int(s[i]-'0')
			}
			i++
		}
		digits := i - start
		if digits == 0 {
			return time.Time{}, false
		}
		for ; digits < 9; digits++ {
			nsec *= 10
		}
	}
	if i >= len(s) {
		return time.Time{}, false
	}
	offset := 0
	switch s[i] {
	case 'Z', 'z':
		i++
	case '+', '-':
		if len(s)-i != 6 || s[i+3] != ':' {
			return time.Time{}, false
		}
		oh, ok1 := num(i+1, 2)
		om, ok2 := num(i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return time.Time{}, false
		}
		offset = (oh*60 + om) * 60
		if s[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return time.Time{}, false
	}
	if i != len(s) {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	if t.Day() != day { // e.g. February 30
		return time.Time{}, false
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// Append appends t in UTC as [Layout] does, truncated (not rounded)
// to milliseconds, as JavaScript's toISOString writes it.
func Append(dst []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / 1e6
	dst = append4(dst, y)
	dst = append(dst, '-')
	dst = append2(dst, int(mo))
	dst = append(dst, '-')
	dst = append2(dst, d)
	dst = append(dst, 'T')
	dst = append2(dst, h)
	dst = append(dst, ':')
	dst = append2(dst, mi)
	dst = append(dst, ':')
	dst = append2(dst, s)
	dst = append(dst, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
	return dst
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }
func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}
