package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// Calls and returns between Lua functions in pollLoop.
//
// fib(13) is 753 calls and as many returns around ten instructions each:
// the call and the return were two fifths of its time. callLua and
// returnLua are OP_CALL and OP_RETURN for the case a script spends its
// time in (a Lua function without varargs called from a Lua function, and
// its return to it), each one function with its checks folded: the call
// stack's limits tested on the depth at hand (reserve's own test, reserve
// called only when it has something to do), the frame written in place,
// the callee's registers cleared in one range. Everything else (varargs, a
// new segment to take, registers to grow, a return to a Go function or out
// of the loop) goes to the handler as before.

// fastCall is OP_CALL of a function value, as gopher-lua's handler and
// the call-stack hook (reserve) do it, when the callee's registers are
// already allocated: the frame is pushed straight onto the growing call
// stack (a segment the stack had before is used again, where gopher-lua
// takes one from a sync.Pool), without the handler's interface calls. A
// Lua function without varargs then runs in this loop; a Go function is
// called here and its results copied back (callGFunction) when the state
// is not a coroutine (whose yields go back to its resumer, which
// gopher-lua's handler does). Anything else goes to the handler.
func fastCall(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32) bool {
	reg := s.reg
	// The call-stack hook's reserve comes first, before anything else of
	// the call (its "stack overflow" before "attempt to call"); its own
	// test of whether it has anything to do (the limit, the slack's
	// frames, the value stack's doubling) made here, on the depth at hand.
	idx, sp := int(gs.segIdx), int(gs.segSp)
	if d := idx*lua.FramesPerSegment + sp; d >= L.Options.CallStackSize ||
		d+callSlack > len(gs.segments)*lua.FramesPerSegment || reg.growBy < len(reg.array) {
		reserve(L, gs)
	}
	a := reg.array
	ra := cf.LocalBase + OpA(inst)
	fn, ok := a[ra].(*lua.LFunction)
	if !ok {
		return false
	}
	if fn.IsG {
		return fastCallGo(L, s, gs, cf, fn, inst)
	}
	proto := fn.Proto
	if proto.IsVarArg != 0 {
		return false
	}
	nargs := OpB(inst) - 1
	if nargs < 0 {
		if nargs = reg.top - (ra + 1); nargs < 0 {
			return false
		}
	}
	np, used := int(proto.NumParameters), int(proto.NumUsedRegisters)
	lbase := ra + 1
	hi := max(np, nargs, used)
	if lbase+hi > len(a) {
		return false
	}
	if sp >= lua.FramesPerSegment {
		// The next frame is the first of the next segment: only one the
		// stack already holds (gopher-lua's Push takes a new one).
		if idx+1 >= len(gs.segments) || gs.segments[idx+1] == nil {
			return false
		}
		idx, sp = idx+1, 0
	}
	nf := &(*segment)(gs.segments[idx])[sp]
	// Field by field (see pushFrame).
	nf.Idx = sp + lua.FramesPerSegment*idx
	nf.Fn = fn
	nf.Parent = cf
	nf.Pc = 0
	nf.Base = ra
	nf.LocalBase = lbase
	nf.ReturnBase = ra
	nf.NArgs = nargs
	nf.NRet = OpC(inst) - 1
	nf.TailCall = 0
	gs.segIdx, gs.segSp = uint16(idx), uint8(sp+1)
	// initCallFrame: the missing parameters, the arguments past the
	// parameters and the other registers are nil (Lua's compiler leaves
	// out a LOADNIL at a function's start), one range.
	fillNil(a[lbase+min(nargs, np) : lbase+hi])
	reg.top = lbase + used
	s.currentFrame = nf
	return true
}

// fillNil sets every value of r to Lua's nil, four at a time: a
// register loop's index and bounds tests were a fifth of a call's
// instructions. (Not an array assignment: that is a call of
// typedmemmove or memclrHasPointers.)
func fillNil(r []lua.LValue) {
	nilv := lua.LNil
	for len(r) >= 4 {
		r[0], r[1], r[2], r[3] = nilv, nilv, nilv, nilv
		r = r[4:]
	}
	for i := range r {
		r[i] = nilv
	}
}

// clearRegs sets every value of r to Go's nil (registers above the top),
// four at a time as fillNil.
func clearRegs(r []lua.LValue) {
	for len(r) >= 4 {
		r[0], r[1], r[2], r[3] = nil, nil, nil, nil
		r = r[4:]
	}
	for i := range r {
		r[i] = nil
	}
}

// returnLua is OP_RETURN from a Lua function to the Lua function that
// called it, inside this loop (cf is not the loop's base frame):
// gopher-lua's handler without its interface calls (the frame's open
// upvalues closed first, as it does); the emptied segment stays on the
// stack for callLua to use again. It reports false, having changed
// nothing, for the handler to do the return.
func returnLua(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32, baseframe *callFrame) bool {
	if cf == baseframe {
		return false
	}
	// autoGrowingCallFrameStack.Pop: an emptied segment is left as the
	// end of the one before it.
	idx, sp := int(gs.segIdx), int(gs.segSp)
	if sp == 0 {
		if idx == 0 {
			return false
		}
		idx, sp = idx-1, lua.FramesPerSegment
	}
	sp-- // the popped frame, cf
	// The caller is the frame below cf on the stack.
	var parent *callFrame
	switch {
	case sp > 0:
		parent = &(*segment)(gs.segments[idx])[sp-1]
	case idx > 0:
		parent = &(*segment)(gs.segments[idx-1])[lua.FramesPerSegment-1]
	default:
		return false
	}
	if parent.Fn.IsG {
		return false
	}
	reg := s.reg
	a := reg.array
	ra := cf.LocalBase + OpA(inst)
	b := OpB(inst)
	n := cf.NRet
	top := reg.top
	if n == lua.MultRet {
		if n = b - 1; b == 0 {
			n = top - ra
		}
	}
	regv := cf.ReturnBase
	if regv+n > len(a) {
		return false
	}
	if s.uvcache != nil {
		// The handler closes the frame's open upvalues first.
		closeUpvalues(L, cf.LocalBase)
	}
	gs.segIdx, gs.segSp = uint16(idx), uint8(sp)
	// copyReturnValues: n results from RA, those past B-1 (or past the
	// top) nil, and the registers above them cleared.
	m := n // the results there are: B-1 of them (all up to the top for B = 0), none past the top
	if b != 0 {
		m = min(m, b-1)
	}
	m = max(min(m, top-ra), 0)
	for i := 0; i < m; i++ {
		a[regv+i] = a[ra+i] // regv < ra: each source is read before it is written
	}
	for i := m; i < n; i++ {
		a[regv+i] = lua.LNil
	}
	reg.top = regv + n
	// A loop, not clear: the range is a few registers, and clear's
	// memclrHasPointers with its bulk write barrier cost more.
	if regv+n < top {
		clearRegs(a[regv+n : top])
	}
	s.currentFrame = parent
	return true
}

// condJump is the JMP after a comparison or a test that does not skip
// it, done with the test as lvm.c does (dojump in the same instruction):
// the pc after the jump and the poll count with the jump counted, when
// the next instruction is a JMP and counting it does not bring the count
// to the poll; otherwise pc and n as they are, for the loop to run it.
func condJump(code []uint32, pc, n int) (int, int) {
	if n > 1 && pc < len(code) {
		if j := code[pc]; int(j>>26) == lua.OP_JMP {
			return pc + 1 + OpBx(j) - maxArgSbx, n - 1
		}
	}
	return pc, n
}
