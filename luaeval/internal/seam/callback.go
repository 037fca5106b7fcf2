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
// (<, <=, > or >=, either parameter on either side), or of a field of
// each (`a.score > b.score`, `a[1] < b[1]`): what its instructions compute
// (up to two GETTABLE or GETTABLEKS of a constant key, LT or LE, JMP,
// LOADBOOL, LOADBOOL, RETURN).
type Order struct {
	loads  [2]orderLoad
	nloads int
	le     bool // LE, else LT
	rb, rc int  // the operands: 0 and 1 the parameters, 2+i load i's value
	want   bool // LT/LE's A: the result is the comparison == want
}

type orderLoad struct {
	src int // the parameter indexed
	key lua.LValue
}

// OrderOf recognises fn as an Order when a call of it from the Go
// function L is running could reach neither the C-call limit nor the
// call-stack limit (so that a call that reads no metamethod and compares
// two numbers or two strings, which can neither fail nor yield nor
// allocate, has nothing observable but its result: table.sort then
// computes it without the call). The limits do not move while the
// caller's calls come and go, so this is asked once.
func OrderOf(L *lua.LState, fn lua.LValue) (Order, bool) {
	f, ok := fn.(*lua.LFunction)
	if !ok || f.IsG || !fastTables || !Enabled() {
		return Order{}, false
	}
	p := f.Proto
	if p.NumParameters != 2 || p.IsVarArg != 0 {
		return Order{}, false
	}
	var o Order
	code := p.Code
	// slot maps a register to its operand: the parameters, then the loads.
	slot := map[int]int{0: 0, 1: 1}
	for len(code) > 0 && o.nloads < 2 {
		op := OpCode(code[0])
		if op != lua.OP_GETTABLE && op != lua.OP_GETTABLEKS {
			break
		}
		dst, src, k := OpA(code[0]), OpB(code[0]), OpC(code[0])
		if dst < 2 || src > 1 || k&RKBit == 0 {
			return Order{}, false
		}
		if _, taken := slot[dst]; taken {
			return Order{}, false
		}
		o.loads[o.nloads] = orderLoad{src: src, key: p.Constants[k&^RKBit]}
		slot[dst] = 2 + o.nloads
		o.nloads++
		code = code[1:]
	}
	if len(code) < 5 {
		return Order{}, false
	}
	c := code[:5]
	op := OpCode(c[0])
	if op != lua.OP_LT && op != lua.OP_LE {
		return Order{}, false
	}
	rb, okb := slot[OpB(c[0])]
	rc, okc := slot[OpC(c[0])]
	r := OpA(c[2])
	if !okb || !okc ||
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
	o.le, o.rb, o.rc, o.want = op == lua.OP_LE, rb, rc, OpA(c[0]) != 0
	return o, true
}

// Less is the comparator's result on a and b; ok is false when the call
// would do more than this computes (a load meeting __index or not from a
// table, operands that are not two numbers or two strings): then it must
// be called. LT/LE A skips the JMP when the comparison differs from A, to the
// LOADBOOL of false; else it jumps to the LOADBOOL of true.
func (o *Order) Less(a, b lua.LValue) (less, ok bool) {
	vals := [4]lua.LValue{a, b}
	for i := range o.nloads {
		t, isTable := vals[o.loads[i].src].(*lua.LTable)
		if !isTable {
			return false, false
		}
		// A raw nil (where __index would be consulted) is no number:
		// the call is made.
		vals[2+i] = Get(t, o.loads[i].key)
	}
	var cmp bool
	switch x := vals[o.rb].(type) {
	case lua.LNumber:
		y, ok := vals[o.rc].(lua.LNumber)
		if !ok {
			return false, false
		}
		cmp = x < y || o.le && x == y
	case lua.LString:
		// Byte by byte, as the VM compares strings (gopher-lua's strCmp).
		y, ok := vals[o.rc].(lua.LString)
		if !ok {
			return false, false
		}
		cmp = x < y || o.le && x == y
	default:
		return false, false
	}
	return cmp == o.want, true
}
