package lcmsgpack

import (
	"encoding/hex"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// host is a sandbox with no proxies.
type host struct{}

func (host) Real(t *lua.LTable) *lua.LTable { return t }
func (host) MaxStringBytes() int            { return 1 << 20 }

// The library alone on a bare state; the results are redis-server 7.0.15's.
// (luaeval's TestCmsgpackAgainstRedis compares generated values with a
// running redis-server.)
func TestCmsgpack(t *testing.T) {
	L := lauxlibtest.State(t, "cmsgpack", func(L *lua.LState, t *lua.LTable) { Open(L, t, host{}) })
	got := lauxlibtest.Run(t, L, "return cmsgpack.pack(1, 0.5, 'a', {1, 2}, {k = true}, -1, 300, 2^40, 1.1)")
	const want = "01ca3f000000a16192010281a16bc3ffcd012ccf0000010000000000cb3ff199999999999a"
	if s, ok := got[0].(lua.LString); !ok || hex.EncodeToString([]byte(s)) != want {
		t.Errorf("pack = %x, want %s", got, want)
	}
	got = lauxlibtest.Run(t, L, "return cmsgpack.unpack(cmsgpack.pack(1, 'xy', {1, {2}}))")
	if len(got) != 3 || got[0] != lua.LNumber(1) || got[1] != lua.LString("xy") ||
		got[2].(*lua.LTable).RawGetInt(2).(*lua.LTable).RawGetInt(1) != lua.LNumber(2) {
		t.Errorf("unpack = %v", got)
	}
	if got, want := lauxlibtest.Error(t, L, "return cmsgpack.unpack('\\220')"), "user_script:1: Missing bytes in input."; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
