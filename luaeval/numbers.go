package luaeval

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// fmtNumber is Lua 5.1's number to string conversion (LUAI_NUMFFORMAT
// "%.14g"), with glibc's spelling of infinities and NaN.
func fmtNumber(f float64) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// appendG17 appends f as C's printf("%.17g"), which Redis uses for numbers
// passed to commands and for double replies.
func appendG17(b []byte, f float64) []byte {
	if s, ok := nonFinite(f); ok {
		return append(b, s...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', 17, 64)
}

// nonFinite spells infinities and NaN as glibc's printf does; a NaN with its
// sign bit set (0/0 on x86) prints as "-nan".
func nonFinite(f float64) (string, bool) {
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

// toInteger is C's (long long) cast of a double as x86 performs it: NaN and
// out-of-range values become LLONG_MIN.
func toInteger(f float64) int64 {
	if f != f || f >= 9.2233720368547758e18 || f < -9.2233720368547758e18 {
		return math.MinInt64
	}
	return int64(f)
}

// str2number is lobject.c:luaO_str2d: strtod (decimal, hex, inf, nan) with
// only white space allowed around the number.
func str2number(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // C stops at NUL
	}
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	n, f := scanNumber(t)
	if n == 0 {
		return 0, false
	}
	if strings.TrimRight(t[n:], " \t\n\r\v\f") != "" {
		return 0, false
	}
	return f, true
}

// scanNumber reads the longest prefix of s that strtod accepts.
func scanNumber(s string) (int, float64) {
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

// luaCheckNumber is luaL_checknumber: numbers and numeric strings.
func luaCheckNumber(L *lua.LState, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := str2number(string(v)); ok {
			return f
		}
	}
	typeError(L, n, "number")
	return 0
}

// luaCheckInt is luaL_checkint: the number cast to lua_Integer, then to a
// 32-bit C int (so 1e10 becomes 1410065408, as in Redis).
func luaCheckInt(L *lua.LState, n int) int {
	return int(int32(toInteger(luaCheckNumber(L, n))))
}

func luaOptInt(L *lua.LState, n int, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return luaCheckInt(L, n)
}

// luaCheckString is luaL_checklstring: strings and numbers (as "%.14g").
func luaCheckString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return fmtNumber(float64(v))
	}
	typeError(L, n, "string")
	return ""
}

// argError is luaL_argerror: "bad argument #n to 'name' (msg)".
func argError(L *lua.LState, n int, msg string) {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && dbg.Name != "" {
			name = dbg.Name
		}
	}
	L.RaiseError("bad argument #%d to '%s' (%s)", n, name, msg)
}

// typeError is luaL_typerror; a missing argument is "no value".
func typeError(L *lua.LState, n int, expected string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	argError(L, n, expected+" expected, got "+got)
}
