package lcjson

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// host is a sandbox with no proxies.
type host struct{ L *lua.LState }

func (host) Real(t *lua.LTable) *lua.LTable { return t }
func (host) MaxStringBytes() int            { return 1 << 20 }

// The library alone on a bare state; the results are redis-server 7.0.15's.
func TestCjson(t *testing.T) {
	var lib *Lib
	L := lauxlibtest.State(t, "cjson", func(L *lua.LState, t *lua.LTable) { lib = Open(L, t, host{L}) })
	for src, want := range map[string]string{
		"return cjson.encode({1, 2, 3})":        "[1,2,3]",
		"return cjson.encode({a = {b = true}})": `{"a":{"b":true}}`,
		`return cjson.encode('a/"\1')`:          `"a\/\"\u0001"`,
		"return cjson.encode(0.1)":              "0.1",
		"return cjson.encode(1e100)":            "1e+100",
	} {
		if got := lauxlibtest.Run(t, L, src); len(got) != 1 || got[0] != lua.LString(want) {
			t.Errorf("%s = %v, want %q", src, got, want)
		}
	}
	got := lauxlibtest.Run(t, L, `return cjson.decode('[1,"x",null,{"k":[true]}]')`)
	arr, ok := got[0].(*lua.LTable)
	if !ok || arr.RawGetInt(1) != lua.LNumber(1) || arr.RawGetInt(2) != lua.LString("x") || arr.RawGetInt(3) != Null ||
		arr.RawGetInt(4).(*lua.LTable).RawGetString("k").(*lua.LTable).RawGetInt(1) != lua.LTrue {
		t.Errorf("decode = %v", got)
	}
	for src, want := range map[string]string{
		"return cjson.encode({[1] = 1, [100] = 2})":              "user_script:1: Cannot serialise table: excessively sparse array",
		"return cjson.encode(1/0)":                               "user_script:1: Cannot serialise number: must not be NaN or Inf",
		"return cjson.decode('[1,')":                             "user_script:1: Expected value but found T_END at character 4",
		"cjson.encode_max_depth(2) return cjson.encode({{{1}}})": "user_script:1: Cannot serialise, excessive nesting (3)",
	} {
		if got := lauxlibtest.Error(t, L, src); got != want {
			t.Errorf("%s: error %q, want %q", src, got, want)
		}
	}
	// The depth set above lasts until Reset, which the engine calls before
	// each script.
	if lauxlibtest.Error(t, L, "return cjson.encode({{{1}}})") == "" {
		t.Fatal("no error")
	}
	lib.Reset()
	if got := lauxlibtest.Run(t, L, "return cjson.encode({{{1}}})"); got[0] != lua.LString("[[[1]]]") {
		t.Errorf("after Reset: %v", got)
	}
	// cjson.new is another module with a configuration of its own.
	got = lauxlibtest.Run(t, L, "local c = cjson.new() c.encode_max_depth(1) c.x = 1 return c ~= cjson, cjson.encode_max_depth(), c.x, c.null == cjson.null, c.new().encode_max_depth()")
	if len(got) != 5 || got[0] != lua.LTrue || got[1] != lua.LNumber(1000) || got[2] != lua.LNumber(1) || got[3] != lua.LTrue || got[4] != lua.LNumber(1000) {
		t.Errorf("cjson.new(): %v", got)
	}
}
