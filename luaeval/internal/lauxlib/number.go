package lauxlib

import (
	"math"
	"strconv"
	"strings"
)

// FormatNumber is Lua 5.1's number to string conversion (LUAI_NUMFFORMAT
// "%.14g"), with glibc's spelling of infinities and NaN.
func FormatNumber(f float64) string {
	if s, ok := NonFinite(f); ok {
		return s
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// NonFinite spells infinities and NaN as glibc's printf does; a NaN with its
// sign bit set (0/0 on x86) prints as "-nan".
func NonFinite(f float64) (string, bool) {
	switch {
	case math.IsInf(f, 1):
		return "inf", true
	case math.IsInf(f, -1):
		return "-inf", true
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan", true
		}
		return "nan", true
	case f == 0 && math.Signbit(f):
		return "-0", true
	}
	return "", false
}

// ToInteger is C's (long long) cast of a double as x86 performs it: NaN and
// out-of-range values become LLONG_MIN.
func ToInteger(f float64) int64 {
	if f != f || f >= 9.2233720368547758e18 || f < -9.2233720368547758e18 {
		return math.MinInt64
	}
	return int64(f)
}

// Str2Number is lobject.c:luaO_str2d: strtod (decimal, hex, inf, nan) with
// only white space allowed around the number.
func Str2Number(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // C stops at NUL
	}
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	n, f := ScanNumber(t)
	if n == 0 {
		return 0, false
	}
	if strings.TrimRight(t[n:], " \t\n\r\v\f") != "" {
		return 0, false
	}
	return f, true
}

// ScanNumber reads the longest prefix of s that strtod accepts.
func ScanNumber(s string) (int, float64) {
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
	rest := strings.ToLower(s[i:])
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return i + 8, sign(math.Inf(1))
	case strings.HasPrefix(rest, "inf"):
		return i + 3, sign(math.Inf(1))
	case strings.HasPrefix(rest, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			if j := strings.IndexByte(s[n:], ')'); j >= 0 {
				n += j + 1
			}
		}
		return n, sign(math.NaN())
	case strings.HasPrefix(rest, "0x") && len(rest) > 2 && (isHex(rest[2]) || rest[2] == '.' && len(rest) > 3 && isHex(rest[3])):
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

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
