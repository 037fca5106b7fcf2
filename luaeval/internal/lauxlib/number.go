package lauxlib

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/internal/cmath"
	"github.com/minilock/minilock/internal/redisstr"
)

// NumberBox boxes a number of L's script as an lua.LValue. The seam sets
// it to its boxing that allocates nothing for small integers
// (seam.NumberIn); without the hooks it is the plain conversion.
var NumberBox = func(L *lua.LState, f float64) lua.LValue { return lua.LNumber(f) }

type numeric interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Number is lua.LNumber(x) as an lua.LValue, boxed by NumberBox: what
// the library functions push.
func Number[T numeric](L *lua.LState, x T) lua.LValue { return NumberBox(L, float64(x)) }

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

// AppendNumber appends FormatNumber(f) to dst.
func AppendNumber(dst []byte, f float64) []byte {
	if f >= 1 && f < 1e14 {
		// The common case first (counters, indexes, ids): a positive
		// integer, which no special spelling applies to.
		if i := int64(f); float64(i) == f {
			return strconv.AppendInt(dst, i, 10)
		}
	}
	if s, ok := NonFinite(f); ok {
		return append(dst, s...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', 14, 64)
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

// ScanNumber reads the longest prefix of s that strtod accepts (see
// redisstr.ScanNumber).
func ScanNumber(s string) (int, float64) { return redisstr.ScanNumber(s) }

// CNaN gives a NaN result the sign glibc's would have: an argument's NaN
// passes through (x's first), any other NaN is the x86 default, the "real
// indefinite" with its sign bit set, which Lua prints "-nan" (log(-1),
// fmod(1, 0), pow(-8, 1/3)). Go's math package returns a positive NaN of
// its own. Checked function by function against redis-server.
func CNaN(r, x, y float64) float64 {
	switch {
	case r == r:
		return r
	case x != x:
		return x
	case y != y:
		return y
	}
	return math.Float64frombits(0xFFF8000000000000)
}

// Pow is glibc's pow as Lua 5.1 calls it (luai_numpow), NaNs included: a
// NaN base comes back as x*x, negated for an odd integer exponent of a
// negative-signed NaN; a NaN exponent as x+y; a negative base to a
// fraction as the x86 default NaN. Go's Pow returns a positive NaN. The
// numbers are glibc's too (cmath.Pow), not Go's.
func Pow(x, y float64) float64 {
	r := cmath.Pow(x, y)
	switch {
	case r == r:
		return r
	case x != x:
		if math.Signbit(x) && y == math.Trunc(y) && math.Abs(y) < 1<<53 && math.Mod(y, 2) != 0 {
			return -x
		}
		return x
	case y != y:
		return y
	}
	return math.Float64frombits(0xFFF8000000000000)
}
