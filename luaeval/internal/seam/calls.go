package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// Calls and returns between Lua functions in pollLoop.
//
// fib(13) is 753 calls and as many returns around ten instructions each:
// the call and the return were two fifths of its time. fastCall and
// returnLua are OP_CALL and OP_RETURN for the case a script spends its
// time in (a Lua function without varargs called from a Lua function, and
// its return to it), each one function: the call-stack hook's reserve (or
// the return's upvalue closing) first, so that no value is kept across a
// call; the frame written in place; the caller found by its frame's Parent
// rather than by the stack's segment arithmetic; the callee's registers
// cleared over exactly their range; the new frame's prototype, base and pc
// handed to the loop in registers, not read back through
// s.currentFrame. Everything else (varargs, a new segment to take,
// registers to grow, a return to a Go function or out of the loop) goes to
// the handler as before.

// fastCall is OP_CALL of a function value, as gopher-lua's handler and
// the call-stack hook (reserve) do it, when the callee's registers are
// already allocated: the frame is pushed straight onto the growing call
// stack (a segment the stack had before is used again, where gopher-lua
// takes one from a sync.Pool), without the handler's interface calls. A
// Lua function without varargs then runs in this loop; a Go function is
// called here and its results copied back (callGFunction) when the state
// is not a coroutine (whose yields go back to its resumer, which
// gopher-lua's handler does). Anything else goes to the handler. It
// returns the frame to run next, its prototype, base and pc; or a nil
// frame, having done nothing but reserve (which the handler's hook does
// first too), for the handler to make the call.
func fastCall(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32, pc, n int, baseframe *callFrame) (*callFrame, *lua.FunctionProto, int, int, int) {
	cf.Pc = pc
	// The call-stack hook's reserve comes first, before anything else of
	// the call (its "stack overflow" before "attempt to call"); its own
	// test of whether it has anything to do (the limit, the slack's
	// frames, the value stack's doubling) made here. What the call needs
	// is read after it: nothing is kept across it.
	if d := gs.depth(); d >= L.Options.CallStackSize ||
		d+callSlack > len(gs.segments)*lua.FramesPerSegment || s.reg.growBy < len(s.reg.array) {
		reserve(L, gs)
	}
	reg := s.reg
	idx, sp := int(gs.segIdx), int(gs.segSp)
	a := reg.array
	ra := cf.LocalBase + OpA(inst)
	fn, ok := a[ra].(*lua.LFunction)
	if !ok {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	if fn.IsG {
		if !fastCallGo(L, s, gs, cf, fn, inst) {
			return handle(L, s, cf, inst, pc, n, baseframe)
		}
		cf = s.currentFrame
		p, lb, pc := frameCode(cf)
		return cf, p, lb, pc, n
	}
	proto := fn.Proto
	if proto.IsVarArg != 0 {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	nargs := OpB(inst) - 1
	if nargs < 0 {
		if nargs = reg.top - (ra + 1); nargs < 0 {
			return handle(L, s, cf, inst, pc, n, baseframe)
		}
	}
	np, used := int(proto.NumParameters), int(proto.NumUsedRegisters)
	lbase := ra + 1
	hi := max(np, nargs, used)
	if lbase+hi > len(a) {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	if sp >= lua.FramesPerSegment {
		// The next frame is the first of the next segment: only one the
		// stack already holds (gopher-lua's Push takes a new one).
		if idx+1 >= len(gs.segments) || gs.segments[idx+1] == nil {
			return handle(L, s, cf, inst, pc, n, baseframe)
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
	fillNil(a, lbase+min(nargs, np), lbase+hi)
	reg.top = lbase + used
	s.currentFrame = nf
	return nf, proto, lbase, 0, n
}

// fillNil sets registers lo to hi of a to Lua's nil.
func fillNil(a []lua.LValue, lo, hi int) {
	nilv := lua.LNil
	for i := lo; i < hi; i++ {
		a[i] = nilv
	}
}

// clearRegs sets registers lo to hi of a, above the top, to Go's nil (as
// gopher-lua clears them, for the collector). Only those: each store of a
// pointer is a write barrier while the collector marks.
func clearRegs(a []lua.LValue, lo, hi int) {
	for i := lo; i < hi; i++ {
		a[i] = nil
	}
}

// returnLua is OP_RETURN from a Lua function to the Lua function that
// called it, inside this loop (cf is not the loop's base frame):
// gopher-lua's handler without its interface calls (the frame's open
// upvalues closed first, as it does); the emptied segment stays on the
// stack for fastCall to use again. It returns the caller's frame,
// prototype, base and pc; or a nil frame, having changed nothing but the
// upvalues the handler closes first too, for the handler to do the return.
func returnLua(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32, pc, n int, baseframe *callFrame) (*callFrame, *lua.FunctionProto, int, int, int) {
	cf.Pc = pc
	if cf == baseframe {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	if s.uvcache != nil {
		// The handler closes the frame's open upvalues first; done here
		// before anything else, it is done once whether this returns or
		// the handler does (which then finds none open), and nothing is
		// kept across the call.
		closeUpvalues(L, cf.LocalBase)
	}
	// autoGrowingCallFrameStack.Pop: an emptied segment is left as the
	// end of the one before it.
	idx, sp := int(gs.segIdx), int(gs.segSp)
	if sp == 0 {
		if idx == 0 {
			return handle(L, s, cf, inst, pc, n, baseframe)
		}
		idx, sp = idx-1, lua.FramesPerSegment
	}
	sp-- // the popped frame, cf
	// The caller is the frame below cf on the stack, the one that was on
	// top when cf was pushed (a tail call keeps it): cf.Parent, checked by
	// its index (the first frame of a coroutine has none).
	parent := cf.Parent
	if parent == nil || parent.Idx != cf.Idx-1 {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	pfn := parent.Fn
	if pfn.IsG {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	reg := s.reg
	a := reg.array
	ra := cf.LocalBase + OpA(inst)
	b := OpB(inst)
	nr := cf.NRet
	top := reg.top
	if nr == lua.MultRet {
		if nr = b - 1; b == 0 {
			nr = top - ra
		}
	}
	regv := cf.ReturnBase
	if regv+nr > len(a) {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	gs.segIdx, gs.segSp = uint16(idx), uint8(sp)
	// copyReturnValues: nr results from RA, those past B-1 (or past the
	// top) nil, and the registers above them cleared.
	m := nr // the results there are: B-1 of them (all up to the top for B = 0), none past the top
	if b != 0 {
		m = min(m, b-1)
	}
	m = max(min(m, top-ra), 0)
	for i := 0; i < m; i++ {
		a[regv+i] = a[ra+i] // regv < ra: each source is read before it is written
	}
	for i := m; i < nr; i++ {
		a[regv+i] = lua.LNil
	}
	reg.top = regv + nr
	// Not clear: the range is a few registers, and clear's
	// memclrHasPointers with its bulk write barrier cost more.
	clearRegs(a, regv+nr, top)
	s.currentFrame = parent
	return parent, pfn.Proto, parent.LocalBase, parent.Pc, n
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
