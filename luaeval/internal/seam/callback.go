package seam

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
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

// Order is a comparator of the shape `function(a, b) return a < b end`
// (<, <=, > or >=, either parameter on either side): what its five
// instructions compute (LT or LE, JMP, LOADBOOL, LOADBOOL, RETURN).
type Order struct {
	le     bool // LE, else LT
	rb, rc int  // the operands: parameter 0 or 1
	want   bool // LT/LE's A: the result is the comparison == want
}

// OrderOf recognises fn as an Order when a call of it from the Go
// function L is running could reach neither the C-call limit nor the
// call-stack limit (so that a call on two numbers, which can neither fail
// nor yield nor allocate, has nothing observable but its result: table.sort
// then computes it without the call). The limits do not move while the
// caller's calls come and go, so this is asked once.
func OrderOf(L *lua.LState, fn lua.LValue) (Order, bool) {
	f, ok := fn.(*lua.LFunction)
	if !ok || f.IsG || !fastTables || !Enabled() {
		return Order{}, false
	}
	p := f.Proto
	if p.NumParameters != 2 || p.IsVarArg != 0 || len(p.Code) < 5 {
		return Order{}, false
	}
	c := p.Code[:5]
	op := OpCode(c[0])
	if op != lua.OP_LT && op != lua.OP_LE {
		return Order{}, false
	}
	rb, rc := OpB(c[0]), OpC(c[0])
	r := OpA(c[2])
	if rb > 1 || rc > 1 ||
		OpCode(c[1]) != lua.OP_JMP || OpBx(c[1])-maxArgSbx != 1 ||
		OpCode(c[2]) != lua.OP_LOADBOOL || OpB(c[2]) != 0 || OpC(c[2]) != 1 ||
		OpCode(c[3]) != lua.OP_LOADBOOL || OpA(c[3]) != r || OpB(c[3]) != 1 || OpC(c[3]) != 0 ||
		OpCode(c[4]) != lua.OP_RETURN || OpA(c[4]) != r || OpB(c[4]) != 2 {
		return Order{}, false
	}
	// lauxlib.EnterC raises at MaxCCalls (and past it), reserve when the
	// thread holds its limit of frames.
	gs := growStackOf(L)
	if gs == nil || lauxlib.Of(L).CCalls(L).N+1 >= lauxlib.MaxCCalls || gs.depth() >= L.Options.CallStackSize {
		return Order{}, false
	}
	return Order{le: op == lua.OP_LE, rb: rb, rc: rc, want: OpA(c[0]) != 0}, true
}

// Less is the comparator's result on x and y. LT/LE A skips the JMP when
// the comparison differs from A, to the LOADBOOL of false; else it jumps
// to the LOADBOOL of true.
func (o Order) Less(x, y lua.LNumber) bool {
	args := [2]lua.LNumber{x, y}
	var cmp bool
	if o.le {
		cmp = args[o.rb] <= args[o.rc]
	} else {
		cmp = args[o.rb] < args[o.rc]
	}
	return cmp == o.want
}
