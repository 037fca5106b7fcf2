// Package redisstr reads command arguments as Redis reads them (util.c,
// sds.c, strcasecmp): integers as string2ll, option words compared without
// case up to a NUL, C strings cut at their first NUL, and inline requests
// and shebang lines split as sdssplitargs. The network edge, the data
// commands and the scripting engine all use it, so an argument means the
// same thing everywhere.
package redisstr

import (
	"bytes"
	"math"
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

// CString returns b as C's "%s" prints it: up to its first NUL byte.
func CString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// Split is sdssplitargs for a string, returning the arguments as strings.
func Split(line string) ([]string, bool) {
	buf, ends, ok := SplitInto(nil, nil, []byte(line))
	if !ok {
		return nil, false
	}
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = string(buf[start:end])
		start = end
	}
	return out, true
}

// SplitInto splits an inline request line exactly as Redis's
// sds.c:sdssplitargs does, appending each argument to buf and its end offset
// to ends. It reports false for unbalanced quotes. Quirks kept on purpose:
// blanks between arguments are any isspace byte, but only space, \t, \r and
// \n end an unquoted argument (\v and \f do not); a quote inside an
// unquoted argument opens a quoted part of the same argument; a closing
// quote must be followed by a blank or the end of the line.
func SplitInto(buf []byte, ends []int, line []byte) ([]byte, []int, bool) {
	at := func(i int) byte { // C string semantics: a NUL, or the end, ends the line
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	i := 0
	for {
		for at(i) != 0 && IsSpace(at(i)) {
			i++
		}
		if at(i) == 0 {
			return buf, ends, true
		}
		inDouble, inSingle := false, false
		for done := false; !done; {
			c := at(i)
			switch {
			case inDouble:
				switch {
				case c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
					buf = append(buf, unhex(at(i+2))<<4|unhex(at(i+3)))
					i += 3
				case c == '\\' && at(i+1) != 0:
					i++
					buf = append(buf, unescape(at(i)))
				case c == '"':
					if at(i+1) != 0 && !IsSpace(at(i+1)) {
						return buf, ends, false
					}
					done = true
				case c == 0:
					return buf, ends, false
				default:
					buf = append(buf, c)
				}
			case inSingle:
				switch {
				case c == '\\' && at(i+1) == '\'':
					i++
					buf = append(buf, '\'')
				case c == '\'':
					if at(i+1) != 0 && !IsSpace(at(i+1)) {
						return buf, ends, false
					}
					done = true
				case c == 0:
					return buf, ends, false
				default:
					buf = append(buf, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					buf = append(buf, c)
				}
			}
			if at(i) != 0 {
				i++
			}
		}
		ends = append(ends, len(buf))
	}
}

// isSpace is C's isspace in the C locale, which Redis runs its ctype in.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}
