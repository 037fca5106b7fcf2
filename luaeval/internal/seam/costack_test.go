package seam_test

import (
	"context"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// A thread made by NewThread starts with one segment of call stack and
// grows it call by call up to its limit, where a call fails with Lua's
// "stack overflow" (gopher-lua's own growing stack would panic there).
func TestNewThreadGrowsToItsLimit(t *testing.T) {
	if !seam.Enabled() {
		t.Fatalf("the hooks are off (%s)", seam.Why())
	}
	L := lua.NewState()
	defer L.Close()
	L.SetContext(budget{context.Background()})
	p, err := luac.Compile([]byte("n = 0 local function f() n = n + 1 return 1 + f() end return f()"), "=t", luac.Options{})
	if err != nil {
		t.Fatal(err)
	}
	resume, err := luac.Compile([]byte("return coroutine.resume(co)"), "=r", luac.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{8, 9, 100, 1000, 5000} {
		co := seam.NewThread(L, L.NewFunctionFromProto(p), lua.Options{CallStackSize: limit, RegistrySize: 8, RegistryGrowStep: 8, RegistryMaxSize: 1 << 20})
		L.SetGlobal("co", co)
		L.Push(L.NewFunctionFromProto(resume))
		if err := L.PCall(0, 2, nil); err != nil {
			t.Fatal(err)
		}
		if ok, msg := L.Get(-2), L.Get(-1); ok != lua.LFalse || !strings.HasSuffix(msg.String(), "t:1: stack overflow") {
			t.Fatalf("limit %d: resume gave %v, %v", limit, ok, msg)
		}
		L.Pop(2)
		// The chunk tail-calls f: limit frames of f fill the limit.
		if n := L.GetGlobal("n").(lua.LNumber); int(n) != limit {
			t.Errorf("limit %d: %v calls", limit, n)
		}
	}
}
