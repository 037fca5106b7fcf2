package lstrlib

import (
	"math"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
)

// flags are the valid flags of a format specification (FLAGS).
const flags = "-+ #0"

// Spec is one format item of string.format, as scanformat reads it and
// glibc's sprintf then applies it.
type Spec struct {
	Flags string
	Width int  // -1: none
	Prec  int  // -1: none
	Conv  byte // the conversion; 0 for the NUL ending the format
}

// ScanFormat is scanformat: the item that starts at fs[i] (just after its
// '%'), and the index after its conversion.
func ScanFormat(fs string, i int) (Spec, int, error) {
	at := func(k int) byte { // *p, NUL past the end
		if k < len(fs) {
			return fs[k]
		}
		return 0
	}
	p := i
	for at(p) != 0 && strings.IndexByte(flags, at(p)) >= 0 {
		p++
	}
	if p-i >= len(flags)+1 {
		return Spec{}, 0, Error("invalid format (repeated flags)")
	}
	sp := Spec{Flags: fs[i:p], Width: -1, Prec: -1}
	digits := func() int {
		start := p
		for k := 0; k < 2 && isDigit(at(p)); k++ {
			p++
		}
		if p == start {
			return -1
		}
		n, _ := strconv.Atoi(fs[start:p])
		return n
	}
	sp.Width = digits()
	if at(p) == '.' {
		p++
		if sp.Prec = digits(); sp.Prec < 0 {
			sp.Prec = 0 // "%.f": precision zero
		}
	}
	if isDigit(at(p)) {
		return Spec{}, 0, Error("invalid format (width or precision too long)")
	}
	sp.Conv = at(p)
	return sp, p + 1, nil
}

// InvalidOption is the error for an unknown conversion. A NUL conversion
// prints as nothing (lua_pushfstring's %c goes through strlen).
func InvalidOption(conv byte) error {
	c := string(rune(conv))
	if conv == 0 {
		c = ""
	} else if conv >= 0x80 {
		c = string([]byte{conv})
	}
	return Error("invalid option '%" + c + "' to 'format'")
}

func (sp Spec) has(c byte) bool { return strings.IndexByte(sp.Flags, c) >= 0 }

// pad right- or left-justifies s in the field width; numeric items are
// zero padded after their sign and 0x prefix when the 0 flag asks.
func (sp Spec) pad(b []byte, s string, zero bool) []byte {
	n := sp.Width - len(s)
	if n <= 0 {
		return append(b, s...)
	}
	switch {
	case sp.has('-'):
		b = append(b, s...)
		return appendRepeat(b, ' ', n)
	case zero && sp.has('0'):
		k := 0
		if len(s) > 0 && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			k = 1
		}
		if len(s) >= k+2 && s[k] == '0' && (s[k+1] == 'x' || s[k+1] == 'X') {
			k += 2
		}
		b = append(b, s[:k]...)
		b = appendRepeat(b, '0', n)
		return append(b, s[k:]...)
	}
	b = appendRepeat(b, ' ', n)
	return append(b, s...)
}

func appendRepeat(b []byte, c byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, c)
	}
	return b
}

// AppendChar is %c of f: C's (int) cast of a double (out of range:
// INT_MIN), printed as a byte; an item holding a NUL ends there.
func (sp Spec) AppendChar(b []byte, f float64) []byte {
	var c byte
	if f > -2147483649 && f < 2147483648 { // else INT_MIN, whose low byte is 0
		c = byte(int32(f))
	}
	return append(b, redisstr.CString(sp.pad(nil, string([]byte{c}), false))...)
}

// AppendString is %s of s with a precision or shorter than 100 bytes
// (str_format keeps longer ones whole): sprintf stops at s's first NUL.
func (sp Spec) AppendString(b []byte, s string) []byte {
	s = redisstr.CString(s) // luaL_addlstring(buff, strlen(buff))
	if sp.Prec >= 0 && len(s) > sp.Prec {
		s = s[:sp.Prec]
	}
	return sp.pad(b, s, false)
}

// AppendInt is %d (and %i) of f: C's (long long) cast of a double.
func (sp Spec) AppendInt(b []byte, f float64) []byte {
	v := toInt64(f)
	var digits string
	if v < 0 {
		digits = strconv.FormatUint(uint64(-v), 10) // MinInt64 too: -v wraps to itself
	} else {
		digits = strconv.FormatInt(v, 10)
	}
	digits = sp.precision(digits, v == 0)
	sign := ""
	switch {
	case v < 0:
		sign = "-"
	case sp.has('+'):
		sign = "+"
	case sp.has(' '):
		sign = " "
	}
	return sp.pad(b, sign+digits, sp.Prec < 0)
}

// AppendUint is %o, %u, %x and %X of f: C's (unsigned long) cast of a
// double, as gcc compiles it for x86-64 (below 2^63 through a signed
// conversion, so negatives wrap and NaN is 2^63; from 2^63 by subtracting
// it first, so 2^64 and above are 0).
func (sp Spec) AppendUint(b []byte, f float64) []byte {
	var v uint64
	if f >= 9223372036854775808.0 {
		v = uint64(toInt64(f-9223372036854775808.0)) ^ (1 << 63)
	} else {
		v = uint64(toInt64(f))
	}
	var digits string
	switch sp.Conv {
	case 'o':
		digits = strconv.FormatUint(v, 8)
	case 'x':
		digits = strconv.FormatUint(v, 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(v, 16))
	default:
		digits = strconv.FormatUint(v, 10)
	}
	digits = sp.precision(digits, v == 0)
	if sp.has('#') {
		switch {
		case sp.Conv == 'o' && !strings.HasPrefix(digits, "0"):
			digits = "0" + digits
		case sp.Conv == 'x' && v != 0:
			digits = "0x" + digits
		case sp.Conv == 'X' && v != 0:
			digits = "0X" + digits
		}
	}
	return sp.pad(b, digits, sp.Prec < 0)
}

// precision applies an integer conversion's precision: the minimum number
// of digits, where zero printed with precision 0 has none.
func (sp Spec) precision(digits string, zero bool) string {
	if sp.Prec < 0 {
		return digits
	}
	if sp.Prec == 0 && zero {
		return ""
	}
	if n := sp.Prec - len(digits); n > 0 {
		return strings.Repeat("0", n) + digits
	}
	return digits
}

// toInt64 is C's (long long) cast of a double on x86-64: NaN and values
// out of range become LLONG_MIN.
func toInt64(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// AppendFloat is %e, %E, %f, %g and %G of f, as glibc prints them.
func (sp Spec) AppendFloat(b []byte, f float64) []byte {
	upper := sp.Conv == 'E' || sp.Conv == 'G'
	neg := math.Signbit(f)
	var s string
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s = "inf"
		if math.IsNaN(f) {
			s = "nan"
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return sp.pad(b, sp.sign(neg)+s, false)
	}
	prec := sp.Prec
	if prec < 0 {
		prec = 6
	}
	alt := sp.has('#')
	switch sp.Conv {
	case 'e', 'E':
		s = strconv.FormatFloat(math.Abs(f), 'e', prec, 64)
	case 'f':
		s = strconv.FormatFloat(math.Abs(f), 'f', prec, 64)
	default: // g, G
		if prec == 0 {
			prec = 1
		}
		s = formatG(math.Abs(f), prec, alt)
	}
	if alt && !strings.Contains(s, ".") {
		if k := strings.IndexByte(s, 'e'); k >= 0 {
			s = s[:k] + "." + s[k:]
		} else {
			s += "."
		}
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return sp.pad(b, sp.sign(neg)+s, true)
}

// sign is what precedes a number's digits: '-', or what the + and space
// flags ask for.
func (sp Spec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case sp.has('+'):
		return "+"
	case sp.has(' '):
		return " "
	}
	return ""
}

// formatG is %.<prec>g of f >= 0: %e when the exponent (after rounding to
// prec digits) is below -4 or at least prec, %f otherwise; trailing zeros
// go unless alt.
func formatG(f float64, prec int, alt bool) string {
	e := strconv.FormatFloat(f, 'e', prec-1, 64)
	k := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[k+1:])
	if exp < -4 || exp >= prec {
		mant := e[:k]
		if !alt {
			mant = trimZeros(mant)
		}
		return mant + e[k:]
	}
	s := strconv.FormatFloat(f, 'f', prec-1-exp, 64)
	if !alt {
		s = trimZeros(s)
	}
	return s
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// AppendQuoted is addquoted (%q): s between double quotes, with '"', '\\'
// and newline escaped by a backslash, '\r' as \r and NUL as \000.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b = append(b, '\\', c)
		case '\r':
			b = append(b, '\\', 'r')
		case 0:
			b = append(b, '\\', '0', '0', '0')
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
