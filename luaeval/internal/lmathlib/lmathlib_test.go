package lmathlib

import (
	"math"
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// The library alone on a bare state; the results are redis-server 7.0.15's.
func TestMath(t *testing.T) {
	r := NewRand()
	L := lauxlibtest.State(t, "math", func(L *lua.LState, t *lua.LTable) { Open(L, t, &r) })
	got := lauxlibtest.Run(t, L, "math.randomseed(7) return math.random(100), math.random(100), math.random(5, 10), math.random()")
	if want := []lua.LValue{lua.LNumber(27), lua.LNumber(69), lua.LNumber(6)}; len(got) != 4 || !slices.Equal(got[:3], want) ||
		lauxlib.FormatNumber(float64(got[3].(lua.LNumber))) != "0.12911084859125" {
		t.Errorf("random after randomseed(7) = %v", got)
	}
	got = lauxlibtest.Run(t, L, "return math.fmod(7, 3), math.mod(-7, 3), math.max(1, 5, 3), math.min(4, 2), math.huge")
	if want := []lua.LValue{lua.LNumber(1), lua.LNumber(-1), lua.LNumber(5), lua.LNumber(2), lua.LNumber(math.Inf(1))}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, want := lauxlibtest.Error(t, L, "return math.random(0)"), "user_script:1: bad argument #1 to 'random' (interval is empty)"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
