// Package lmathlib is what minilock changes in gopher-lua's math table to
// make it Lua 5.1's as Redis 7.0 ships it (lmathlib.c): math.huge, fmod and
// its 5.0 name mod, min and max with Lua 5.1's checks, and Redis's
// math.random and math.randomseed on a 48-bit lrand48 generator (rand.c),
// which gives the same sequence on every platform.
package lmathlib

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Open fixes gopher-lua's math table t (in L) to Lua 5.1's. math.random
// draws from r, which the caller keeps: as in Redis 7.0, it is not
// reseeded between scripts.
func Open(L *lua.LState, t *lua.LTable, r *Rand) {
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	for k, f := range map[string]lua.LGFunction{
		"random":     r.random,
		"randomseed": r.randomseed,
		"mod":        mathFmod,
		"fmod":       mathFmod,
		"min":        mathMinMax(false),
		"max":        mathMinMax(true),
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
		L.Push(lua.LNumber(best))
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
		L.Push(lua.LNumber(x))
	case 1:
		u := lauxlib.CheckInt(L, 1)
		if u < 1 {
			lauxlib.ArgError(L, 1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(x*float64(u)) + 1))
	case 2:
		l := lauxlib.CheckInt(L, 1)
		u := lauxlib.CheckInt(L, 2)
		if l > u {
			lauxlib.ArgError(L, 2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(x*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (r *Rand) randomseed(L *lua.LState) int {
	r.seed(int32(lauxlib.CheckInt(L, 1)))
	return 0
}

func mathFmod(L *lua.LState) int {
	L.Push(lua.LNumber(math.Mod(lauxlib.CheckNumber(L, 1), lauxlib.CheckNumber(L, 2))))
	return 1
}
