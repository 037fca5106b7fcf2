package seam

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// SetCallLimit lowers and raises the depth at which a call overflows.
func TestSetCallLimit(t *testing.T) {
	if !Enabled() {
		t.Skip("hooks off: ", Why())
	}
	L := lua.NewState(lua.Options{CallStackSize: 1000})
	defer L.Close()
	depth := func() int {
		t.Helper()
		err := L.DoString(`n = 0 local function f() n = n + 1 return 1 + f() end f()`)
		if err == nil || !strings.Contains(err.Error(), "stack overflow") {
			t.Fatalf("recursion ended with %v", err)
		}
		return int(L.GetGlobal("n").(lua.LNumber))
	}
	full := depth()
	if !SetCallLimit(L, 500) {
		t.Fatal("SetCallLimit refused a fixed call stack")
	}
	if got := depth(); got != full-500 {
		t.Fatalf("depth %d under a limit of 500, %d under 1000", got, full)
	}
	SetCallLimit(L, 5000) // no more than the state was made with
	if got := depth(); got != full {
		t.Fatalf("depth %d after raising the limit back, want %d", got, full)
	}
	M := lua.NewState(lua.Options{CallStackSize: 1000, MinimizeStackMemory: true})
	defer M.Close()
	// A growing stack keeps its limit in its options (costack.go).
	if !SetCallLimit(M, 500) || M.Options.CallStackSize != 500 {
		t.Fatalf("SetCallLimit on a growing call stack: limit %d", M.Options.CallStackSize)
	}
}
