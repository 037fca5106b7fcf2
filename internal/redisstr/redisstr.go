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
	"strconv"
	"strings"
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

// CString returns b as C's "%s" prints it: up to its first NUL byte (a
// string is not copied).
func CString[T string | []byte](b T) string {
	for i := 0; i < len(b); i++ {
		if b[i] == 0 {
			return string(b[:i])
		}
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

// hasPrefixFold is strings.HasPrefix ignoring ASCII case (prefix is lower
// case), without the copy strings.ToLower would make of s.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// ScanNumber reads the longest prefix of s that C's strtod accepts
// (decimal and hex floats, inf, infinity, nan, nan(...)), without skipping
// leading white space: it returns how many bytes that is (0: no number)
// and the value.
func ScanNumber(s string) (int, float64) {
	if n, f, ok := scanInteger(s); ok {
		return n, f
	}
	return scanFloat(s)
}

// scanInteger is ScanNumber's fast path for what scripts and scores mostly
// carry, a short decimal integer ("5", "-1700000000000"): up to 15 digits
// are exact in a float64, so no rounding question arises. ok is false for
// anything else, a fraction, an exponent, "0x", or more digits.
func scanInteger(s string) (n int, f float64, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	var v int64
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		v = v*10 + int64(s[j]-'0')
		j++
	}
	if j == i || j-i > 15 {
		return 0, 0, false
	}
	if j < len(s) {
		switch s[j] {
		case '.', 'e', 'E', 'x', 'X':
			return 0, 0, false
		}
	}
	f = float64(v)
	if s[0] == '-' {
		f = -f // "-0" is -0.0, as strtod has it
	}
	return j, f, true
}

// scanFloat is ScanNumber's general path.
func scanFloat(s string) (int, float64) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		return i + 8, sign(math.Inf(1))
	case hasPrefixFold(rest, "inf"):
		return i + 3, sign(math.Inf(1))
	case hasPrefixFold(rest, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			if j := strings.IndexByte(s[n:], ')'); j >= 0 {
				n += j + 1
			}
		}
		return n, sign(math.NaN())
	case hasPrefixFold(rest, "0x") && len(rest) > 2 && (isHex(rest[2]) || rest[2] == '.' && len(rest) > 3 && isHex(rest[3])):
		j := i + 2
		var mant float64
		digits := 0
		exp := 0
		for j < len(s) && isHex(s[j]) {
			mant = mant*16 + float64(unhex(s[j]))
			j++
			digits++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isHex(s[j]) {
				mant = mant*16 + float64(unhex(s[j]))
				exp -= 4
				j++
				digits++
			}
		}
		if digits == 0 {
			return 0, 0
		}
		if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
			k := j + 1
			eneg := false
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				eneg = s[k] == '-'
				k++
			}
			if k < len(s) && s[k] >= '0' && s[k] <= '9' {
				e := 0
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					if e < 100000 {
						e = e*10 + int(s[k]-'0')
					}
					k++
				}
				if eneg {
					e = -e
				}
				exp += e
				j = k
			}
		}
		return j, sign(math.Ldexp(mant, exp))
	}
	j := i
	digits := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(s[:j], 64)
	if err != nil {
		// Out of range: strtod gives ±HUGE_VAL or 0, ParseFloat says so
		// with f already set to ±Inf or 0.
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0
		}
	}
	return j, f
}

// Strtod is C's strtod: leading white space, then ScanNumber. It returns
// the value and how many bytes of s it read (0: no number).
func Strtod(s string) (float64, int) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	n, f := ScanNumber(t)
	if n == 0 {
		return 0, 0
	}
	return f, len(s) - len(t) + n
}

// String2d is util.c's string2d: strtod over the whole of s, with no
// leading white space, no NaN, and no overflow to an infinity or underflow
// to zero (strtod's ERANGE); "inf" and hex floats are numbers.
func String2d(s string) (float64, bool) {
	if len(s) == 0 || IsSpace(s[0]) {
		return 0, false
	}
	f, n := Strtod(s)
	if n != len(s) || f != f || math.IsInf(f, 0) && !IsInfWord(s) {
		return 0, false
	}
	if f == 0 && Underflows(s) {
		return 0, false
	}
	return f, true
}

// IsInfWord reports whether s spells an infinity (strtod's "inf",
// "infinity"), as opposed to a number too large, which is ERANGE.
func IsInfWord(s string) bool {
	s = strings.ToLower(strings.TrimLeft(s, "+-"))
	return s == "inf" || s == "infinity"
}

// Underflows reports whether a literal that parsed as 0 has a non-zero
// mantissa (strtod's ERANGE to zero).
func Underflows(s string) bool {
	s = strings.ToLower(strings.TrimLeft(s, "+-"))
	if strings.HasPrefix(s, "0x") {
		s = s[2:]
		if i := strings.IndexByte(s, 'p'); i >= 0 {
			s = s[:i]
		}
	} else if i := strings.IndexByte(s, 'e'); i >= 0 {
		s = s[:i]
	}
	return strings.Trim(s, "0.") != ""
}
