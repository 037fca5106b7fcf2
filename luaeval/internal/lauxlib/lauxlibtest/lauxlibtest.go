// Package lauxlibtest runs Lua snippets on a bare gopher-lua state, for the
// tests of the library ports (lbit, lstruct, lcjson ...) on their own: no
// engine, no sandbox, an unlimited budget. Chunks are named user_script, as
// Redis names a script, so error messages read as redis-server's do.
package lauxlibtest

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// State returns a state with no libraries but the global table named
// name, filled by open. It is closed when the test ends.
func State(t testing.TB, name string, open func(L *lua.LState, t *lua.LTable)) *lua.LState {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	t.Cleanup(L.Close)
	tab := L.CreateTable(0, 0)
	open(L, tab)
	L.SetGlobal(name, tab)
	return L
}

func call(L *lua.LState, src string) ([]lua.LValue, error) {
	fn, err := L.Load(strings.NewReader(src), "user_script")
	if err != nil {
		return nil, err
	}
	top := L.GetTop()
	L.Push(fn)
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		return nil, err
	}
	var out []lua.LValue
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	L.SetTop(top)
	return out, nil
}

// Run runs src and returns its results; an error fails the test.
func Run(t testing.TB, L *lua.LState, src string) []lua.LValue {
	t.Helper()
	out, err := call(L, src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return out
}

// Error runs src, which must raise an error, and returns the error value
// as text.
func Error(t testing.TB, L *lua.LState, src string) string {
	t.Helper()
	out, err := call(L, src)
	if err == nil {
		t.Fatalf("%s: no error, results %v", src, out)
	}
	if ae, ok := err.(*lua.ApiError); ok {
		return ae.Object.String()
	}
	return err.Error()
}
