package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// Calls from a library's Go code back into Lua.
//
// table.sort calls its comparator once per comparison: through L.Push and
// L.Call that was two thirds of a sort's time (callR's metaCall and
// pushCallFrame, the pushes and pops, each with its size checks) for a
// comparator of five instructions. Call2 pushes the frame the way the VM
// loop's own calls do (pushFrame, on the growing call stack after
// reserve) and runs the state's loop from it, as callR does; the caller
// counts the C boundary (lauxlib.EnterC) as before.

// Call2 is L.Push(fn, a, b); L.Call(2, 1) and the result popped: fn's
// first result. A Lua function without varargs, on a state whose call
// stack grows (every script state with the hooks on), is called directly;
// anything else goes through L.Call.
func Call2(L *lua.LState, fn, a, b lua.LValue) lua.LValue {
	if f, ok := fn.(*lua.LFunction); ok && !f.IsG && f.Proto.IsVarArg == 0 && fastTables && Enabled() {
		if v, ok := call2(L, f, a, b); ok {
			return v
		}
	}
	L.Push(fn)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	v := L.Get(-1)
	L.Pop(1)
	return v
}

// call2 is Call2 of Lua function f; it reports false, having done
// nothing, when the call needs what only L.Call does (a state without a
// growing call stack or a current frame, registers to grow).
func call2(L *lua.LState, f *lua.LFunction, a, b lua.LValue) (lua.LValue, bool) {
	s := stateOf(L)
	gs := growStackOf(L)
	cf := s.currentFrame
	if gs == nil || cf == nil || s.G.MainThread == nil {
		return nil, false
	}
	reg := s.reg
	base := reg.top
	np := int(f.Proto.NumParameters)
	used := int(f.Proto.NumUsedRegisters)
	lbase := base + 1
	if lbase+max(np, 2, used) > len(reg.array) {
		return nil, false
	}
	// The pushes: fn and its arguments above the top.
	arr := reg.array
	arr[base], arr[lbase], arr[lbase+1] = f, a, b
	nf := pushFrame(L, gs, cf, f, base, 2, 1)
	if nf == nil {
		arr[base], arr[lbase], arr[lbase+1] = nil, nil, nil
		return nil, false
	}
	// initCallFrame: missing parameters and the other registers nil
	// (arguments past them stay above the top, as gopher-lua leaves them).
	for i := 2; i < max(np, used); i++ {
		arr[lbase+i] = lua.LNil
	}
	reg.top = lbase + used
	s.currentFrame = nf
	s.mainLoop(L, nf)
	// OP_RETURN has copied the one result to base, the top just above it
	// (callR's SetTop(base + 1)); then the pop.
	arr = reg.array
	v := arr[base]
	clear(arr[base:max(reg.top, base+1)])
	reg.top = base
	return v, true
}
