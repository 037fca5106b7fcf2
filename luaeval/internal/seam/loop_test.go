package seam

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestTruthyIsLVAsBool checks pollLoop's truthiness test against
// gopher-lua's on every kind of value, the odd ones included (a Go nil in
// a register, a second *LNilType, which LVAsBool finds true).
func TestTruthyIsLVAsBool(t *testing.T) {
	values := []lua.LValue{
		lua.LNil, lua.LTrue, lua.LFalse, nil, &lua.LNilType{},
		lua.LNumber(0), lua.LNumber(-1), lua.LString(""), lua.LString("x"),
		&lua.LTable{}, &lua.LFunction{}, &lua.LUserData{},
	}
	for _, v := range values {
		if got, want := truthy(v), lua.LVAsBool(v); got != want {
			t.Errorf("truthy(%#v) = %v, LVAsBool says %v", v, got, want)
		}
	}
}
