package keyspace

import (
	"bytes"
	"math"
	"strconv"

	"github.com/minilock/minilock/resp"
)

// ParseInt parses b as Redis's string2ll does (util.c): optional '-', no '+',
// no spaces, no leading zeros, no "-0", at most 20 bytes, within int64.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n >= 21 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// intArg parses an integer argument or returns Redis's error for it.
func intArg(b []byte) (int64, error) {
	n, ok := ParseInt(b)
	if !ok {
		return 0, resp.ErrNotInteger
	}
	return n, nil
}

// Option reports whether the argument arg is the option word name (lower
// case), compared as C's strcasecmp compares Redis's NUL-terminated argv: an
// argument with a NUL byte in it is only read up to that byte.
func Option(arg []byte, name string) bool {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	if len(arg) != len(name) {
		return false
	}
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// cstring returns arg up to its first NUL byte, as a C format "%s" prints it.
func cstring(arg []byte) string {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	return string(arg)
}

// appendInt formats n in base 10.
func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
