package luaeval

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

func init() { lauxlib.CalledAsMethod = calledAsMethod }

// calledAsMethod is what luaL_argerror learns from getfuncname's
// namewhat == "method": the Lua function one level up called the running
// Go function through a register that OP_SELF filled (obj:f(...)).
func calledAsMethod(L *lua.LState) bool {
	dbg, ok := L.GetStack(1)
	if !ok {
		return false
	}
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	if err != nil {
		return false
	}
	fn, ok := fv.(*lua.LFunction)
	if !ok || fn.IsG {
		return false
	}
	pc, ok := seam.FramePC(dbg)
	if !ok || pc < 0 || pc >= len(fn.Proto.Code) {
		return false
	}
	in := fn.Proto.Code[pc]
	if op := seam.OpCode(in); op != lua.OP_CALL && op != lua.OP_TAILCALL {
		return false
	}
	a := seam.OpA(in)
	if _, ok := localName(fn.Proto, a+1, pc); ok {
		return false
	}
	w, ok := symbexec(fn.Proto, pc, a)
	return ok && seam.OpCode(w) == lua.OP_SELF
}
