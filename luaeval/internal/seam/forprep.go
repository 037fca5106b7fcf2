package seam

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

func installForPrep() {
	hook(lua.OP_FORPREP, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if ours(L) {
				forPrep(L, inst)
			}
			return orig(L, inst, baseframe)
		}
	})
}

// forPrep does OP_FORPREP's checks as lvm.c does them before gopher-lua's
// handler runs: the initial value, the limit and the step, in that order,
// each a number or a string that converts to one (tonumber, which writes
// the number back into its register), else Lua 5.1's error for the first
// that is neither.
func forPrep(L *lua.LState, inst uint32) {
	f := frameOf(L)
	a := OpA(inst)
	for i, what := range [3]string{"initial value", "limit", "step"} {
		switch v := f.get(a + i).(type) {
		case lua.LNumber:
		case lua.LString:
			n, ok := lauxlib.Str2Number(string(v))
			if !ok {
				L.RaiseError("'for' %s must be a number", what)
			}
			f.set(a+i, NumberIn(L, n))
		default:
			L.RaiseError("'for' %s must be a number", what)
		}
	}
}
