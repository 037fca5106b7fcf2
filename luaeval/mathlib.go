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
	sb.set(t, map[string]lua.LGFunction{
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
	L.Push(lua.LNumber(math.Mod(lauxlib.CheckNumber(L, 1), lauxlib.CheckNumber(L, 2))))
	return 1
}
