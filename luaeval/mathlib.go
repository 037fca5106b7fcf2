package luaeval

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// mathLib fixes gopher-lua's math table to Lua 5.1's, with Redis's
// math.random: a 48-bit lrand48 generator (rand.c) that gives the same
// sequence on every platform and, as in Redis 7.0, is not reseeded between
// scripts.
func (sb *sandbox) mathLib(t *lua.LTable) {
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	for name, f := range map[string]func(float64) float64{
		"ceil": glibcNaN(math.Ceil), "cos": glibcNaN(math.Cos), "cosh": glibcNaN(math.Cosh),
		"exp": glibcNaN(math.Exp), "floor": glibcNaN(math.Floor), "log": glibcNaN(math.Log),
		"sin": glibcNaN(math.Sin), "sinh": glibcNaN(math.Sinh), "sqrt": glibcNaN(math.Sqrt),
		"tan": glibcNaN(math.Tan), "tanh": glibcNaN(math.Tanh), "atan": glibcNaN(math.Atan),
		"deg": func(x float64) float64 { return x / (math.Pi / 180) },
		"rad": func(x float64) float64 { return x * (math.Pi / 180) },
		// glibc answers these domain errors with a positive NaN.
		"acos":  positiveNaN(math.Acos),
		"asin":  positiveNaN(math.Asin),
		"log10": positiveNaN(math.Log10),
	} {
		t.RawSetString(name, sb.L.NewFunction(math1(f)))
	}
	// fabs clears the sign of a NaN too.
	t.RawSetString("abs", sb.L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(math.Abs(lauxlib.CheckNumber(L, 1))))
		return 1
	}))
	sb.set(t, map[string]lua.LGFunction{
		"atan2":      math2(func(y, x float64) float64 { return lauxlib.CNaN(math.Atan2(y, x), y, x) }),
		"pow":        math2(lauxlib.Pow),
		"modf":       mathModf,
		"frexp":      mathFrexp,
		"ldexp":      mathLdexp,
		"random":     sb.mathRandom,
		"randomseed": sb.mathRandomseed,
		"mod":        mathFmod,
		"fmod":       mathFmod,
		"min":        mathMinMax(false),
		"max":        mathMinMax(true),
	})
}

// mathMinMax is math.min / math.max: at least one number (Lua 5.1 checks
// the first argument before looking at the rest).
func mathMinMax(isMax bool) lua.LGFunction {
	return func(L *lua.LState) int {
		best := lauxlib.CheckNumber(L, 1)
		for i := 2; i <= L.GetTop(); i++ {
			v := lauxlib.CheckNumber(L, i)
			if isMax && v > best || !isMax && v < best {
				best = v
			}
		}
		L.Push(lua.LNumber(best))
		return 1
	}
}

// lrand48 state, as rand.c keeps it: X(n+1) = (a*X(n) + c) mod 2^48.
type lrand48 struct{ x uint64 }

const (
	lrandA    = 0x5DEECE66D
	lrandC    = 0xB
	lrandMask = 1<<48 - 1
	lrandMax  = 1<<31 - 1 // REDIS_LRAND48_MAX
)

func newLrand48() lrand48 { return lrand48{x: 0x1234ABCD330E} }

func (r *lrand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

func (r *lrand48) next() int32 {
	r.x = (lrandA*r.x + lrandC) & lrandMask
	return int32(r.x >> 17)
}

func (sb *sandbox) mathRandom(L *lua.LState) int {
	r := float64(sb.e.rng.next()%lrandMax) / float64(lrandMax)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := lauxlib.CheckInt(L, 1)
		if u < 1 {
			lauxlib.ArgError(L, 1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := lauxlib.CheckInt(L, 1)
		u := lauxlib.CheckInt(L, 2)
		if l > u {
			lauxlib.ArgError(L, 2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (sb *sandbox) mathRandomseed(L *lua.LState) int {
	sb.e.rng.seed(int32(lauxlib.CheckInt(L, 1)))
	return 0
}

func mathFmod(L *lua.LState) int {
	x, y := lauxlib.CheckNumber(L, 1), lauxlib.CheckNumber(L, 2)
	L.Push(lua.LNumber(lauxlib.CNaN(math.Mod(x, y), x, y)))
	return 1
}

// math1 is one of lmathlib.c's functions of one number: luaL_checknumber
// (numeric strings too, "1e500" as inf), then the C function.
func math1(f func(float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		L.Push(lua.LNumber(f(lauxlib.CheckNumber(L, 1))))
		return 1
	}
}

// math2 is one of lmathlib.c's functions of two numbers.
func math2(f func(float64, float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		L.Push(lua.LNumber(f(lauxlib.CheckNumber(L, 1), lauxlib.CheckNumber(L, 2))))
		return 1
	}
}

// glibcNaN gives f's NaN results glibc's signs (lauxlib.CNaN).
func glibcNaN(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 { return lauxlib.CNaN(f(x), x, x) }
}

// positiveNaN makes f's domain errors (a NaN from a number) positive.
func positiveNaN(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 {
		r := f(x)
		if r != r && x == x {
			return math.Float64frombits(0x7FF8000000000000)
		}
		return lauxlib.CNaN(r, x, x)
	}
}

// mathModf is C's modf: the integral part and the fraction, which is a
// zero of the number's sign for an infinity (Go's Modf gives NaN).
func mathModf(L *lua.LState) int {
	x := lauxlib.CheckNumber(L, 1)
	ip, fp := math.Modf(x)
	if math.IsInf(x, 0) {
		fp = math.Copysign(0, x)
	}
	L.Push(lua.LNumber(ip))
	L.Push(lua.LNumber(lauxlib.CNaN(fp, x, x)))
	return 2
}

func mathFrexp(L *lua.LState) int {
	m, e := math.Frexp(lauxlib.CheckNumber(L, 1))
	L.Push(lua.LNumber(m))
	L.Push(lua.LNumber(e))
	return 2
}

func mathLdexp(L *lua.LState) int {
	x := lauxlib.CheckNumber(L, 1)
	L.Push(lua.LNumber(math.Ldexp(x, lauxlib.CheckInt(L, 2))))
	return 1
}
