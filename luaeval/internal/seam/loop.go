package seam

import (
	"context"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// The VM loop.
//
// With a context, gopher-lua's loop (mainLoopWithContext) selects on
// ctx.Done() before every instruction: an interface call and a channel
// receive check that were a quarter of a numeric loop's time. A script's
// state runs pollLoop instead, the same loop reading the context every
// PollEvery instructions: a kill still stops the script well within a
// microsecond of Lua, and the run context counts its polls instead of
// instructions (PollInterval).

// PollEvery is how many instructions pollLoop runs between two reads of
// the context's Done channel.
const PollEvery = 64

// PollInterval is how many instructions run between two calls of a
// script state's context's Done: PollEvery with the hooks, 1 without
// (gopher-lua's own loop).
func PollInterval() int {
	if Enabled() {
		return PollEvery
	}
	return 1
}

// ctxLoopFn is gopher-lua's loop with a context (mainLoopWithContext),
// read from a probe state when the layout is checked.
var ctxLoopFn func(*lua.LState, *callFrame)

func readCtxLoop(probe *lua.LState) {
	probe.SetContext(context.Background())
	ctxLoopFn = stateOf(probe).mainLoop
	probe.RemoveContext()
}

// SetContext is L.SetContext(ctx), with pollLoop as L's VM loop when the
// hooks are on.
func SetContext(L *lua.LState, ctx context.Context) {
	L.SetContext(ctx)
	if Enabled() && ctx != nil {
		stateOf(L).mainLoop = pollLoop
	}
}

// last is the frame on top of a growing call stack
// (autoGrowingCallFrameStack.Last), or nil.
func (s *growStack) last() *callFrame {
	seg, sp := s.segments[s.segIdx], s.segSp
	if sp == 0 {
		if s.segIdx == 0 {
			return nil
		}
		seg, sp = s.segments[s.segIdx-1], lua.FramesPerSegment
	}
	return &(*segment)(seg)[sp-1]
}

// pollLoop is mainLoopWithContext polling every PollEvery instructions.
// A state whose call stack is not of the growing kind, an empty stack and
// a Go function on top go to gopher-lua's loop, which handles them.
func pollLoop(L *lua.LState, baseframe *callFrame) {
	s := stateOf(L)
	gs := growStackOf(L)
	if gs == nil {
		ctxLoopFn(L, baseframe)
		return
	}
	cf := gs.last()
	if cf == nil || cf.Fn.IsG {
		ctxLoopFn(L, baseframe)
		return
	}
	s.currentFrame = cf
	base := unsafe.Pointer(baseframe)
	n := PollEvery
	for {
		cf = s.currentFrame
		inst := cf.Fn.Proto.Code[cf.Pc]
		cf.Pc++
		if n--; n == 0 {
			n = PollEvery
			if ctx := L.Context(); ctx != nil {
				select {
				case <-ctx.Done():
					L.RaiseError("%s", ctx.Err().Error())
					return
				default:
				}
			}
		}
		// Arithmetic, comparisons and the numeric for on numbers, the
		// bulk of a script that computes, are done here as their hooks
		// (arith.go, ccalls.go) and gopher-lua's OP_FORLOOP do them,
		// without the indirect call; any other operand goes to the
		// handler.
		switch int(inst >> 26) {
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD:
			if fastArith(L, s, cf, inst) {
				continue
			}
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			if fastCompare(s, cf, inst) {
				continue
			}
		case lua.OP_FORLOOP:
			if fastForLoop(L, s, cf, inst) {
				continue
			}
		}
		if jumpTable[inst>>26](L, inst, base) == 1 {
			return
		}
	}
}

// rkNumber is RK(x) when it is a number.
func rkNumber(s *lState, cf *callFrame, x int) (lua.LNumber, bool) {
	var v lua.LValue
	if x&RKBit != 0 {
		v = cf.Fn.Proto.Constants[x&^RKBit]
	} else {
		v = s.reg.array[cf.LocalBase+x]
	}
	n, ok := v.(lua.LNumber)
	return n, ok
}

// fastArith is the arithmetic hook's work when both operands are numbers.
func fastArith(L *lua.LState, s *lState, cf *callFrame, inst uint32) bool {
	x, ok := rkNumber(s, cf, OpB(inst))
	if !ok {
		return false
	}
	y, ok := rkNumber(s, cf, OpC(inst))
	if !ok {
		return false
	}
	frame{reg: s.reg, cf: cf}.set(OpA(inst), NumberIn(L, arith(int(inst>>26), float64(x), float64(y))))
	return true
}

// fastCompare is OP_EQ, OP_LT and OP_LE's hooks' work on two numbers.
func fastCompare(s *lState, cf *callFrame, inst uint32) bool {
	x, ok := rkNumber(s, cf, OpB(inst))
	if !ok {
		return false
	}
	y, ok := rkNumber(s, cf, OpC(inst))
	if !ok {
		return false
	}
	var r bool
	switch int(inst >> 26) {
	case lua.OP_EQ:
		r = x == y
	case lua.OP_LT:
		r = x < y
	default:
		r = x <= y
	}
	frame{reg: s.reg, cf: cf}.condJump(inst, r)
	return true
}

// fastForLoop is gopher-lua's OP_FORLOOP when the loop goes on (the
// handler ends it): R(A) += R(A+2); if R(A) <?= R(A+1) then { pc += sBx;
// R(A+3) = R(A) }.
func fastForLoop(L *lua.LState, s *lState, cf *callFrame, inst uint32) bool {
	ra := cf.LocalBase + OpA(inst)
	a := s.reg.array
	if ra+3 >= len(a) {
		return false
	}
	init, ok1 := a[ra].(lua.LNumber)
	limit, ok2 := a[ra+1].(lua.LNumber)
	step, ok3 := a[ra+2].(lua.LNumber)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	init += step
	if !(step > 0 && init <= limit || step <= 0 && init >= limit) {
		return false
	}
	v := NumberIn(L, float64(init))
	a[ra] = v
	a[ra+3] = v
	if ra+3 >= s.reg.top {
		s.reg.top = ra + 4
	}
	cf.Pc += OpBx(inst) - maxArgSbx
	return true
}

// maxArgSbx is the bias of an instruction's sBx field.
const maxArgSbx = 0x3ffff >> 1
