package lstruct

import (
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// The library alone on a bare state; the results are redis-server 7.0.15's.
func TestStruct(t *testing.T) {
	L := lauxlibtest.State(t, "struct", func(L *lua.LState, t *lua.LTable) {
		for k, f := range Funcs() {
			t.RawSetString(k, L.NewFunction(f))
		}
	})
	for _, tc := range []struct {
		src  string
		want []lua.LValue
	}{
		{"return struct.pack('>I2', 258)", []lua.LValue{lua.LString("\x01\x02")}},
		{"return struct.pack('<d', 1.5)", []lua.LValue{lua.LString("\x00\x00\x00\x00\x00\x00\xf8\x3f")}},
		{"return struct.unpack('<i4', '\\255\\255\\255\\255')", []lua.LValue{lua.LNumber(-1), lua.LNumber(5)}},
		{"return struct.unpack('>h', '\\255\\254', 1)", []lua.LValue{lua.LNumber(-2), lua.LNumber(3)}},
		{"return struct.size('!4 b i')", []lua.LValue{lua.LNumber(8)}},
	} {
		if got := lauxlibtest.Run(t, L, tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.src, got, tc.want)
		}
	}
	for src, want := range map[string]string{
		"return struct.pack('i33', 1)": "user_script:1: integral size 33 is larger than limit of 32",
		"return struct.size('s')":      "user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)",
	} {
		if got := lauxlibtest.Error(t, L, src); got != want {
			t.Errorf("%s: error %q, want %q", src, got, want)
		}
	}
}
