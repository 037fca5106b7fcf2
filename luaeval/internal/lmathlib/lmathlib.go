// Package lmathlib is what minilock changes in gopher-lua's math table to
// make it Lua 5.1's as Redis 7.0 ships it (lmathlib.c): glibc's results
// for the transcendental functions (package cmath), math.huge, every
// function checking its numbers with luaL_checknumber (numeric strings,
// "1e500" as inf) and giving NaNs the signs glibc gives them, fmod and its
// 5.0 name mod, modf as C's, min and max with Lua 5.1's checks, and Redis's
// math.random and math.randomseed on a 48-bit lrand48 generator (rand.c),
// which gives the same sequence on every platform.
package lmathlib

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/internal/cmath"
	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Open fixes gopher-lua's math table t (in L) to Lua 5.1's. math.random
// draws from r, which the caller keeps: as in Redis 7.0, it is not
// reseeded between scripts.
func Open(L *lua.LState, t *lua.LTable, r *Rand) {
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	for name, f := range map[string]func(float64) float64{
		"ceil": glibcNaN(math.Ceil), "cos": glibcNaN(cmath.Cos), "cosh": glibcNaN(cmath.Cosh),
		"exp": glibcNaN(cmath.Exp), "floor": glibcNaN(math.Floor), "log": glibcNaN(cmath.Log),
		"sin": glibcNaN(cmath.Sin), "sinh": glibcNaN(cmath.Sinh), "sqrt": glibcNaN(math.Sqrt),
		"tan": glibcNaN(cmath.Tan), "tanh": glibcNaN(cmath.Tanh), "atan": glibcNaN(cmath.Atan),
		"deg": func(x float64) float64 { return x / (math.Pi / 180) },
		"rad": func(x float64) float64 { return x * (math.Pi / 180) },
		// glibc answers these domain errors with a positive NaN.
		"acos":  positiveNaN(cmath.Acos),
		"asin":  positiveNaN(cmath.Asin),
		"log10": positiveNaN(cmath.Log10),
		// fabs clears the sign of a NaN too.
		"abs": math.Abs,
	} {
		t.RawSetString(name, L.NewFunction(math1(f)))
	}
	for k, f := range map[string]lua.LGFunction{
		"random":     r.random,
		"randomseed": r.randomseed,
		"mod":        mathFmod,
		"fmod":       mathFmod,
		"min":        mathMinMax(false),
		"max":        mathMinMax(true),
		// glibc's atan2 of two NaNs returns x's (the second argument).
		"atan2": math2(func(y, x float64) float64 { return lauxlib.CNaN(cmath.Atan2(y, x), x, y) }),
		"pow":   math2(lauxlib.Pow),
		"modf":  mathModf,
		"frexp": mathFrexp,
		"ldexp": mathLdexp,
	} {
		t.RawSetString(k, L.NewFunction(f))
	}
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
		L.Push(lauxlib.Number(L, best))
		return 1
	}
}

// Rand is math.random's generator, lrand48 as rand.c keeps it:
// X(n+1) = (a*X(n) + c) mod 2^48. Its zero value is not seeded; make one
// with NewRand.
type Rand struct{ x uint64 }

const (
	lrandA    = 0x5DEECE66D
	lrandC    = 0xB
	lrandMask = 1<<48 - 1
	lrandMax  = 1<<31 - 1 // REDIS_LRAND48_MAX
)

// NewRand returns a generator in rand.c's initial state.
func NewRand() Rand { return Rand{x: 0x1234ABCD330E} }

func (r *Rand) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

func (r *Rand) next() int32 {
	r.x = (lrandA*r.x + lrandC) & lrandMask
	return int32(r.x >> 17)
}

func (r *Rand) random(L *lua.LState) int {
	x := float64(r.next()%lrandMax) / float64(lrandMax)
	switch L.GetTop() {
	case 0:
		L.Push(lauxlib.Number(L, x))
	case 1:
		u := lauxlib.CheckInt(L, 1)
		if u < 1 {
			lauxlib.ArgError(L, 1, "interval is empty")
		}
		L.Push(lauxlib.Number(L, math.Floor(x*float64(u))+1))
	case 2:
		l := lauxlib.CheckInt(L, 1)
		u := lauxlib.CheckInt(L, 2)
		if l > u {
			lauxlib.ArgError(L, 2, "interval is empty")
		}
		L.Push(lauxlib.Number(L, math.Floor(x*float64(u-l+1))+float64(l)))
	default:
		lauxlib.Error(L, "wrong number of arguments")
	}
	return 1
}

func (r *Rand) randomseed(L *lua.LState) int {
	r.seed(int32(lauxlib.CheckInt(L, 1)))
	return 0
}

func mathFmod(L *lua.LState) int {
	x, y := lauxlib.CheckNumber(L, 1), lauxlib.CheckNumber(L, 2)
	L.Push(lauxlib.Number(L, lauxlib.CNaN(math.Mod(x, y), x, y)))
	return 1
}

// math1 is one of lmathlib.c's functions of one number: luaL_checknumber,
// then the C function.
func math1(f func(float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		L.Push(lauxlib.Number(L, f(lauxlib.CheckNumber(L, 1))))
		return 1
	}
}

// math2 is one of lmathlib.c's functions of two numbers.
func math2(f func(float64, float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		L.Push(lauxlib.Number(L, f(lauxlib.CheckNumber(L, 1), lauxlib.CheckNumber(L, 2))))
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
	L.Push(lauxlib.Number(L, ip))
	L.Push(lauxlib.Number(L, lauxlib.CNaN(fp, x, x)))
	return 2
}

func mathFrexp(L *lua.LState) int {
	m, e := math.Frexp(lauxlib.CheckNumber(L, 1))
	L.Push(lauxlib.Number(L, m))
	L.Push(lauxlib.Number(L, e))
	return 2
}

func mathLdexp(L *lua.LState) int {
	x := lauxlib.CheckNumber(L, 1)
	L.Push(lauxlib.Number(L, math.Ldexp(x, lauxlib.CheckInt(L, 2))))
	return 1
}
