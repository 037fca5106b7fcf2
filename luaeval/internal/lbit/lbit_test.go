package lbit

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// The library alone on a bare state; the results are redis-server 7.0.15's.
func TestBit(t *testing.T) {
	L := lauxlibtest.State(t, "bit", func(L *lua.LState, t *lua.LTable) {
		for k, f := range Funcs() {
			t.RawSetString(k, L.NewFunction(f))
		}
	})
	for _, tc := range []struct {
		src  string
		want lua.LValue
	}{
		{"return bit.tohex(-1)", lua.LString("ffffffff")},
		{"return bit.tohex(255, -4)", lua.LString("00FF")},
		{"return bit.tohex(1, -2147483648)", lua.LString("00000001")}, // CVE-2024-31449
		{"return bit.bswap(0x12345678)", lua.LNumber(2018915346)},
		{"return bit.arshift(-256, 4)", lua.LNumber(-16)},
		{"return bit.tobit(2^32 + 5)", lua.LNumber(5)},
		{"return bit.rol(1, 33)", lua.LNumber(2)},
		{"return bit.band('0x0f', 0xff)", lua.LNumber(15)},
		{"return bit.bor(1, 2, 4, 8)", lua.LNumber(15)},
		{"return bit.bnot(0)", lua.LNumber(-1)},
	} {
		if got := lauxlibtest.Run(t, L, tc.src); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s = %v, want %v", tc.src, got, tc.want)
		}
	}
	const want = "user_script:1: bad argument #1 to 'band' (number expected, got string)"
	if got := lauxlibtest.Error(t, L, "return bit.band('x')"); got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
