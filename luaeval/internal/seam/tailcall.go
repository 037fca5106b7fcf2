package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// fastTailCallGo is OP_TAILCALL of a Go function (`return
// cjson.encode(t)`), done as Lua 5.1 does it: luaD_precall calls a C
// function at once, as OP_CALL would, and the OP_RETURN the compiler puts
// after every tail call returns its results. gopher-lua's handler closes
// the frame's upvalues before the call and drops the frame after it, which
// no script can tell apart (the frame's registers are never read again);
// its call goes through pushCallFrame's copies and the handler's
// interface calls, which fastCallGo does not. Anything else (a Lua
// function, a callable table, a coroutine's state, code that is not the
// compiler's) goes to the handler.
func fastTailCallGo(L *lua.LState, s *lState, gs *growStack, cf *callFrame, code []uint32, pc int, inst uint32) bool {
	fn, ok := s.reg.array[cf.LocalBase+OpA(inst)].(*lua.LFunction)
	if !ok || !fn.IsG || pc >= len(code) {
		return false
	}
	// RETURN A 0: the results from R(A) up to the top, as the call leaves them.
	if ret := code[pc]; int(ret>>26) != lua.OP_RETURN || OpA(ret) != OpA(inst) || OpB(ret) != 0 || OpC(inst) != 0 {
		return false
	}
	return fastCallGo(L, s, gs, cf, fn, inst)
}
