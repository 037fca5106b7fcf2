package seam

import (
	"context"
	"sync/atomic"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
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
//
// pollLoop also runs the instructions a script spends its time in itself,
// on the operands they usually have, instead of through gopher-lua's
// handlers behind an indirect call (each with its hook's checks): moves,
// constants, booleans, nils, upvalues, jumps, tests and not; arithmetic,
// negation and comparisons on numbers (on two static small integers in
// integers); table reads and writes that need no metamethod, and globals,
// fields and methods found through chains of __index tables (rawIndex);
// closures; calls of Lua and Go functions and returns between Lua
// functions, the frames pushed and popped on the growing call stack
// directly, open upvalues closed; the numeric for, and the generic for
// over ipairs and pairs. Each leaves the state exactly as the handler
// would, and hands anything else (metamethods, varargs, tail calls,
// coroutines, a limit being reached) to the handler. SetFastPaths turns
// all of it off, for the tests that compare the two.

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
//
// The running function's code, constants, local base and program counter
// are kept in locals (gopher-lua reloads them through four pointers for
// every instruction): pc is written back to cf.Pc before anything that
// reads it (a handler, a call, a return, the kill poll's error, the table
// paths), and all four are read again from s.currentFrame after anything
// that may change the frame. The instructions done inline here never
// raise an error, so an error's position is always the frame's own.
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
	reg := s.reg // a state's registry is never replaced, only its array
	n := PollEvery
	if slowPaths.Load() {
		handlerLoop(L, s, baseframe)
		return
	}
	// nmem holds the poll count across the calls of the table, global
	// and concatenation cases, which then read everything of the loop's
	// again from the frame (reload): a memory word, not a value the
	// register allocator would keep across them (see coldStep).
	nmem := new(int)
	p, lb, pc := frameCode(cf)
	for {
		if n--; n == 0 {
			// The kill poll, before the instruction is fetched: nothing
			// of the loop's is kept across it (see coldStep).
			cf.Pc = pc
			n = pollKill(L, cf)
			cf = s.currentFrame
			p, lb, pc = frameCode(cf)
		}
		inst := p.Code[pc]
		pc++
		// The cases here call no function (but the write barrier, which
		// keeps every register): each finishes its instruction and
		// continues, or breaks to coldStep, which does the instruction
		// again from the start.
		switch int(inst >> 26) {
		case lua.OP_MOVE:
			setReg(reg, lb+OpA(inst), reg.array[lb+OpB(inst)])
			continue
		case lua.OP_LOADK:
			setReg(reg, lb+OpA(inst), p.Constants[OpBx(inst)])
			continue
		case lua.OP_LOADBOOL:
			setReg(reg, lb+OpA(inst), lua.LBool(OpB(inst) != 0))
			if OpC(inst) != 0 {
				pc++
			}
			continue
		case lua.OP_LOADNIL:
			for i, last := lb+OpA(inst), lb+OpB(inst); i <= last; i++ {
				setReg(reg, i, lua.LNil)
			}
			continue
		case lua.OP_GETUPVAL:
			setReg(reg, lb+OpA(inst), cf.Fn.Upvalues[OpB(inst)].Value())
			continue
		case lua.OP_SETUPVAL:
			// Upvalue.SetValue of a closed upvalue (coldStep does an open
			// one's, which may grow the registers).
			if u := upvalueOf(cf.Fn.Upvalues[OpB(inst)]); u.closed || u.reg == nil {
				u.value = reg.array[lb+OpA(inst)]
				continue
			}
		case lua.OP_JMP:
			pc += OpBx(inst) - maxArgSbx
			continue
		case lua.OP_TEST:
			if truthy(reg.array[lb+OpA(inst)]) == (OpC(inst) == 0) {
				pc++
			} else {
				pc, n = condJump(p.Code, pc, n)
			}
			continue
		case lua.OP_TESTSET:
			if v := reg.array[lb+OpB(inst)]; truthy(v) != (OpC(inst) == 0) {
				setReg(reg, lb+OpA(inst), v)
				pc, n = condJump(p.Code, pc, n)
			} else {
				pc++
			}
			continue
		case lua.OP_NOT:
			setReg(reg, lb+OpA(inst), lua.LBool(!truthy(reg.array[lb+OpB(inst)])))
			continue
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_MOD:
			// Two static small integers whose result is one too (coldStep
			// does the rest, as the hooks do).
			bv, cv := rkValue(reg, p.Constants, lb, OpB(inst)), rkValue(reg, p.Constants, lb, OpC(inst))
			if i, ok := smallIndex(bv); ok {
				if j, ok := smallIndex(cv); ok {
					x, y := i+smallMin, j+smallMin
					var r int
					switch op := int(inst >> 26); op {
					case lua.OP_ADD:
						r = x + y
					case lua.OP_SUB:
						r = x - y
					default:
						r, ok = smallArith(op, x, y)
					}
					if ok && uint(r-smallMin) < smallMax-smallMin {
						setReg(reg, lb+OpA(inst), smallAt(r))
						continue
					}
				}
			}
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			bv, cv := rkValue(reg, p.Constants, lb, OpB(inst)), rkValue(reg, p.Constants, lb, OpC(inst))
			x, ok1 := bv.(lua.LNumber)
			y, ok2 := cv.(lua.LNumber)
			if ok1 && ok2 {
				var r bool
				switch int(inst >> 26) {
				case lua.OP_EQ:
					r = x == y
				case lua.OP_LT:
					r = x < y
				default:
					r = x <= y
				}
				// lvm.c: the next instruction (a jump) is skipped when
				// the result differs from A.
				if r != (OpA(inst) != 0) {
					pc++
				} else {
					pc, n = condJump(p.Code, pc, n)
				}
				continue
			}
		case lua.OP_FORLOOP:
			// gopher-lua's OP_FORLOOP when the loop goes on with a static
			// number (coldStep does the rest).
			ra := lb + OpA(inst)
			a := reg.array
			if ra+3 >= len(a) {
				break
			}
			init, ok1 := a[ra].(lua.LNumber)
			limit, ok2 := a[ra+1].(lua.LNumber)
			step, ok3 := a[ra+2].(lua.LNumber)
			if !ok1 || !ok2 || !ok3 {
				break
			}
			init += step
			if !(step > 0 && init <= limit || step <= 0 && init >= limit) {
				break
			}
			v, ok := smallNumber(float64(init))
			if !ok {
				break
			}
			a[ra] = v
			a[ra+3] = v
			if ra+3 >= reg.top {
				reg.top = ra + 4
			}
			pc += OpBx(inst) - maxArgSbx
			continue
		case lua.OP_CALL:
			if cf, p, lb, pc, n = fastCall(L, s, gs, cf, inst, pc, n, baseframe); cf == nil {
				return
			}
			continue
		case lua.OP_GETGLOBAL:
			// gopher-lua's getFieldString over the function's environment.
			cf.Pc, *nmem = pc, n
			v, ok := rawIndex(L, cf.Fn.Env, p.Constants[OpBx(inst)])
			cf, p, lb, pc, n, inst = reload(s, nmem)
			if ok {
				setReg(reg, lb+OpA(inst), v)
				continue
			}
			if cf, p, lb, pc, n = handle(L, s, cf, inst, pc, n, baseframe); cf == nil {
				return
			}
			continue
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			cf.Pc, *nmem = pc, n
			ok := fastGetTable(s, cf, inst)
			cf, p, lb, pc, n, inst = reload(s, nmem)
			if ok {
				continue
			}
			if cf, p, lb, pc, n = getTableSlow(L, s, cf, inst, pc, n, baseframe); cf == nil {
				return
			}
			continue
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			cf.Pc, *nmem = pc, n
			ok := fastSetTable(s, cf, inst)
			cf, p, lb, pc, n, inst = reload(s, nmem)
			if ok {
				continue
			}
			if cf, p, lb, pc, n = handle(L, s, cf, inst, pc, n, baseframe); cf == nil {
				return
			}
			continue
		case lua.OP_CONCAT:
			// The hook's work without the handler's call (concat.go);
			// a __concat metamethod may have called Lua, as after any
			// handler.
			cf.Pc, *nmem = pc, n
			concat(L, inst)
			cf, p, lb, pc, n, inst = reload(s, nmem)
			continue
		case lua.OP_CLOSURE:
			if cf, p, lb, pc, n = fastClosure(L, s, cf, inst, pc, n, baseframe); cf == nil {
				return
			}
			continue
		case lua.OP_RETURN:
			if cf, p, lb, pc, n = returnLua(L, s, gs, cf, inst, pc, n, baseframe); cf == nil {
				return
			}
			continue
		}
		if cf, p, lb, pc, n = coldStep(L, s, gs, cf, inst, pc, n, baseframe); cf == nil {
			return
		}
	}
}

// coldStep runs instruction inst of frame cf (pc already past it) for
// pollLoop: the instructions pollLoop does not finish itself without a
// call. Everything of the loop's that an instruction may change comes in
// and goes out as arguments and results, so that pollLoop keeps nothing
// across a call: Go's calls keep no register, and a value kept across
// one is stored to the stack where it is made (at the loop's head, for
// every instruction). It returns the frame to run, its prototype, base
// and pc, and the poll count; a nil frame when the loop is to return.
func coldStep(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32, pc, n int, baseframe *callFrame) (*callFrame, *lua.FunctionProto, int, int, int) {
	reg := s.reg
	p, lb := cf.Fn.Proto, cf.LocalBase
	switch int(inst >> 26) {
	case lua.OP_SETUPVAL:
		cf.Fn.Upvalues[OpB(inst)].SetValue(reg.array[lb+OpA(inst)])
		return cf, p, lb, pc, n
	case lua.OP_UNM:
		if x, ok := reg.array[lb+OpB(inst)].(lua.LNumber); ok {
			v, ok := smallNumber(-float64(x))
			if !ok {
				v = boxIn(L, -float64(x))
			}
			setReg(reg, lb+OpA(inst), v)
			return cf, p, lb, pc, n
		}
	case lua.OP_SELF:
		// R(A+1) := R(B); R(A) := R(B)[RK(C)] (ccalls.go's hook).
		obj := reg.array[lb+OpB(inst)]
		if v, ok := rawIndex(L, obj, rkValue(reg, p.Constants, lb, OpC(inst))); ok {
			setReg(reg, lb+OpA(inst)+1, obj)
			setReg(reg, lb+OpA(inst), v)
			return cf, p, lb, pc, n
		}
	case lua.OP_LEN:
		if fastLen(s, cf, inst) {
			return cf, p, lb, pc, n
		}
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD:
		bv, cv := rkValue(reg, p.Constants, lb, OpB(inst)), rkValue(reg, p.Constants, lb, OpC(inst))
		// Two static small integers: the result in integers, when it
		// is one too (no float conversions, no box).
		if i, ok := smallIndex(bv); ok {
			if j, ok := smallIndex(cv); ok {
				x, y := i+smallMin, j+smallMin
				var r int
				switch op := int(inst >> 26); op {
				case lua.OP_ADD:
					r = x + y
				case lua.OP_SUB:
					r = x - y
				default:
					r, ok = smallArith(op, x, y)
				}
				if ok && uint(r-smallMin) < smallMax-smallMin {
					setReg(reg, lb+OpA(inst), smallAt(r))
					return cf, p, lb, pc, n
				}
			}
		}
		x, ok1 := bv.(lua.LNumber)
		y, ok2 := cv.(lua.LNumber)
		if ok1 && ok2 {
			// arith, as the hook: the same code for the same NaNs.
			r := arith(int(inst>>26), float64(x), float64(y))
			v, ok := smallNumber(r)
			if !ok {
				v = boxIn(L, r)
			}
			setReg(reg, lb+OpA(inst), v)
			return cf, p, lb, pc, n
		}
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
		bv, cv := rkValue(reg, p.Constants, lb, OpB(inst)), rkValue(reg, p.Constants, lb, OpC(inst))
		var r, ok bool
		x, ok1 := bv.(lua.LNumber)
		y, ok2 := cv.(lua.LNumber)
		switch op := int(inst >> 26); {
		case ok1 && ok2:
			switch op {
			case lua.OP_EQ:
				r = x == y
			case lua.OP_LT:
				r = x < y
			default:
				r = x <= y
			}
			ok = true
		case op == lua.OP_EQ:
			r, ok = rawEquals(bv, cv)
		}
		if ok {
			// lvm.c: the next instruction (a jump) is skipped when
			// the result differs from A.
			if r != (OpA(inst) != 0) {
				pc++
			} else {
				pc, n = condJump(p.Code, pc, n)
			}
			return cf, p, lb, pc, n
		}
	case lua.OP_TFORLOOP:
		cf.Pc = pc
		if src, ok := L.Context().(ForInSource); ok {
			fi := src.ForIn()
			var ok bool
			if n, ok = kernelForIn(L, s, gs, cf, inst, n, fi); ok || fastForIn(L, s, gs, cf, inst, fi) {
				pc = cf.Pc
				return cf, p, lb, pc, n // the generic for's step done, its loop maybe run as a kernel (kernel.go)
			}
		}
	case lua.OP_FORLOOP:
		// gopher-lua's OP_FORLOOP when the loop goes on (the handler
		// ends it): R(A) += R(A+2); if R(A) <?= R(A+1) then { pc +=
		// sBx; R(A+3) = R(A) }.
		ra := lb + OpA(inst)
		a := reg.array
		if ra+3 >= len(a) {
			break
		}
		init, ok1 := a[ra].(lua.LNumber)
		limit, ok2 := a[ra+1].(lua.LNumber)
		step, ok3 := a[ra+2].(lua.LNumber)
		if !ok1 || !ok2 || !ok3 {
			break
		}
		init += step
		if !(step > 0 && init <= limit || step <= 0 && init >= limit) {
			break
		}
		v, ok := smallNumber(float64(init))
		if !ok {
			v = boxIn(L, float64(init))
		}
		a[ra] = v
		a[ra+3] = v
		if ra+3 >= reg.top {
			reg.top = ra + 4
		}
		pc += OpBx(inst) - maxArgSbx
		return cf, p, lb, pc, n
	case lua.OP_FORPREP:
		cf.Pc = pc
		var ok bool
		if n, ok = kernelFor(L, s, cf, inst, n); ok {
			pc = cf.Pc
			return cf, p, lb, pc, n // FORPREP done, its loop maybe run as a kernel (kernel.go)
		}
	}
	return handle(L, s, cf, inst, pc, n, baseframe)
}

// getTableSlow is OP_GETTABLE and OP_GETTABLEKS when fastGetTable has
// not done it: lib.name (a library is a proxy, see rawIndex), or the
// handler. It returns as coldStep does.
func getTableSlow(L *lua.LState, s *lState, cf *callFrame, inst uint32, pc, n int, baseframe *callFrame) (*callFrame, *lua.FunctionProto, int, int, int) {
	if int(inst>>26) == lua.OP_GETTABLEKS {
		reg, p, lb := s.reg, cf.Fn.Proto, cf.LocalBase
		if v, ok := rawIndex(L, reg.array[lb+OpB(inst)], rkValue(reg, p.Constants, lb, OpC(inst))); ok {
			setReg(reg, lb+OpA(inst), v)
			return cf, p, lb, pc, n
		}
	}
	return handle(L, s, cf, inst, pc, n, baseframe)
}

// reload is what pollLoop keeps of the running frame, read again from
// the state after a call: the frame, its prototype, base and pc (which
// the loop wrote to it before the call), the poll count from nmem and the
// instruction before the pc (the one being run).
func reload(s *lState, nmem *int) (*callFrame, *lua.FunctionProto, int, int, int, uint32) {
	cf := s.currentFrame
	p := cf.Fn.Proto
	return cf, p, cf.LocalBase, cf.Pc, *nmem, p.Code[cf.Pc-1]
}

// handle runs instruction inst of frame cf by its handler, for pollLoop,
// returning as coldStep does.
func handle(L *lua.LState, s *lState, cf *callFrame, inst uint32, pc, n int, baseframe *callFrame) (*callFrame, *lua.FunctionProto, int, int, int) {
	cf.Pc = pc
	if jumpTable[inst>>26](L, inst, unsafe.Pointer(baseframe)) == 1 {
		return nil, nil, 0, 0, 0
	}
	cf = s.currentFrame
	p, lb, pc := frameCode(cf)
	return cf, p, lb, pc, n
}

// pollKill is the kill poll: with the context done, the error raised at
// the instruction after frame cf's pc (the one the loop was about to
// fetch, as it was when the poll came after the fetch). It returns the
// next count.
func pollKill(L *lua.LState, cf *callFrame) int {
	if ctx := L.Context(); ctx != nil {
		select {
		case <-ctx.Done():
			cf.Pc++
			L.RaiseError("%s", ctx.Err().Error())
		default:
		}
	}
	return PollEvery
}

// handlerLoop is pollLoop with every instruction run by its handler.
func handlerLoop(L *lua.LState, s *lState, baseframe *callFrame) {
	base := unsafe.Pointer(baseframe)
	n := PollEvery
	for {
		cf := s.currentFrame
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
		if jumpTable[inst>>26](L, inst, base) == 1 {
			return
		}
	}
}

// slowPaths is whether pollLoop leaves every instruction to the
// handlers (SetFastPaths).
var slowPaths atomic.Bool

// SetFastPaths turns pollLoop's own instructions on or off: off, every
// instruction goes to the VM's handlers (with the hooks), the slow path
// the generated comparisons check the fast paths against. It takes effect
// for loops entered after the call; it returns the old setting.
func SetFastPaths(on bool) bool {
	return !slowPaths.Swap(!on)
}

// frameCode is what pollLoop keeps of frame cf in locals.
func frameCode(cf *callFrame) (*lua.FunctionProto, int, int) {
	return cf.Fn.Proto, cf.LocalBase, cf.Pc
}

// setReg writes register i as registry.Set does (the frame's registers
// are allocated when it is entered, so i is within the array).
func setReg(reg *registry, i int, v lua.LValue) {
	reg.array[i] = v
	// max, not a branch: whether a write raises the top changes from
	// one instruction to the next (valgrind's branch model mispredicts
	// it on a third of fib's register writes; 8% of fib's time).
	reg.top = max(reg.top, i+1)
}

// rkValue is RK(x) of the frame whose constants are k and registers
// start at lb.
func rkValue(reg *registry, k []lua.LValue, lb, x int) lua.LValue {
	if x&RKBit != 0 {
		return k[x&^RKBit]
	}
	return reg.array[lb+x]
}

// indexHops is how many tables rawIndex reads, the object's own and the
// __index tables after it, before it leaves the rest to the handler.
const indexHops = 4

// rawIndex is obj[key] as lvm.c's luaV_gettable computes it when it calls
// no function: raw reads along a chain of __index tables (a script's
// globals and libraries are empty proxies whose metatables' __index are
// the real tables), starting from a table or a string (the string
// metatable's __index). It reports false, for the handler to do it all
// again, when a function or anything but a table would be consulted, or
// the chain is longer than indexHops. A nil result is exact: the chain
// ended at a table without __index.
func rawIndex(L *lua.LState, obj, key lua.LValue) (lua.LValue, bool) {
	t, ok := obj.(*lua.LTable)
	switch {
	case ok && t != nil:
	case obj.Type() == lua.LTString:
		if t, ok = L.GetMetaField(obj, "__index").(*lua.LTable); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	for range indexHops {
		if v := Get(t, key); v != lua.LNil {
			return v, true
		}
		if noMeta(t) {
			return lua.LNil, true
		}
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			return nil, false
		}
		h := Get(mt, lua.LString("__index"))
		if h == lua.LNil {
			return lua.LNil, true // a metatable without __index
		}
		if t, ok = h.(*lua.LTable); !ok {
			return nil, false
		}
	}
	return nil, false
}

// rawEquals is OP_EQ's hook (ccalls.go) when it calls no metamethod: for
// any two values but two different tables or two different userdata, it
// compares them as gopher-lua's equals does (strings by their bytes,
// values of different types unequal).
func rawEquals(b, c lua.LValue) (r, ok bool) {
	t := b.Type()
	if t != c.Type() {
		return false, true
	}
	switch t {
	case lua.LTNil:
		return true, true
	case lua.LTNumber:
		return b.(lua.LNumber) == c.(lua.LNumber), true
	case lua.LTBool:
		return b.(lua.LBool) == c.(lua.LBool), true
	case lua.LTString:
		return b.(lua.LString) == c.(lua.LString), true
	case lua.LTTable, lua.LTUserData:
		if b == c {
			return true, true
		}
		return false, false
	}
	return b == c, true
}

// maxArgSbx is the bias of an instruction's sBx field.
const maxArgSbx = 0x3ffff >> 1

// fastCallGo is fastCall of Go function fn.
func fastCallGo(L *lua.LState, s *lState, gs *growStack, cf *callFrame, fn *lua.LFunction, inst uint32) bool {
	reg := s.reg
	ra := cf.LocalBase + OpA(inst)
	nargs := OpB(inst) - 1
	if nargs < 0 {
		nargs = reg.top - (ra + 1)
	}
	nret := OpC(inst) - 1
	if s.Parent != nil || ra+1+nargs > len(reg.array) || ra+nret > len(reg.array) {
		return false
	}
	nf := pushFrame(L, gs, cf, fn, ra, nargs, nret)
	if nf == nil {
		return false
	}
	s.currentFrame = nf
	callGo(L, s, gs, nf)
	return true
}

// pushFrame pushes the frame of a call of fn in R(ra) as
// autoGrowingCallFrameStack.Push does, after reserve; it returns nil (and
// pushes nothing) when the frame needs a segment the stack does not have.
func pushFrame(L *lua.LState, gs *growStack, cf *callFrame, fn *lua.LFunction, ra, nargs, nret int) *callFrame {
	idx, sp := gs.segIdx, gs.segSp
	if sp >= lua.FramesPerSegment {
		if int(idx)+1 >= len(gs.segments) || gs.segments[idx+1] == nil {
			return nil
		}
	}
	// reserve's own test of whether it has anything to do, without the
	// call (every call of a script passes here).
	if d := gs.depth(); d >= L.Options.CallStackSize || d+callSlack > len(gs.segments)*lua.FramesPerSegment ||
		stateOf(L).reg.growBy < len(stateOf(L).reg.array) {
		reserve(L, gs)
	}
	if sp >= lua.FramesPerSegment {
		idx, sp = idx+1, 0
	}
	nf := &(*segment)(gs.segments[idx])[sp]
	// Field by field: a composite literal is built on the stack and
	// copied 16 bytes at a time, which stalls on the 8-byte stores just
	// made (a fifth of a recursive call's time).
	nf.Idx = int(sp) + lua.FramesPerSegment*int(idx)
	nf.Fn = fn
	nf.Parent = cf
	nf.Pc = 0
	nf.Base = ra
	nf.LocalBase = ra + 1
	nf.ReturnBase = ra
	nf.NArgs = nargs
	nf.NRet = nret
	nf.TailCall = 0
	gs.segIdx, gs.segSp = idx, sp+1
	return nf
}

// callGo is callGFunction for frame f, a Go function's, just pushed on a
// state that is not a coroutine: the function's arguments end at the top
// (registry.SetTop), its results are copied to the frame's ReturnBase
// and the frame is popped (an emptied segment kept for fastCall).
func callGo(L *lua.LState, s *lState, gs *growStack, f *callFrame) {
	reg := s.reg
	a := reg.array
	top := f.LocalBase + f.NArgs
	for i := reg.top; i < top; i++ {
		a[i] = lua.LNil
	}
	for i := top; i < reg.top; i++ {
		a[i] = nil
	}
	reg.top = top
	ret := f.Fn.GFunction(L)
	if ret < 0 {
		// switchToParentThread's error for a state with no parent.
		L.RaiseError("can not yield from outside of a coroutine")
	}
	n := f.NRet
	if n == lua.MultRet {
		n = ret
	}
	a = reg.array
	regv, start, limit := f.ReturnBase, reg.top-ret, reg.top
	for i := 0; i < n; i++ {
		if src := start + i; src < limit && src >= 0 {
			a[regv+i] = a[src]
		} else {
			a[regv+i] = lua.LNil
		}
	}
	reg.top = regv + n
	for i := reg.top; i < limit; i++ {
		a[i] = nil
	}
	if gs.segSp == 0 {
		gs.segIdx, gs.segSp = gs.segIdx-1, lua.FramesPerSegment
	}
	gs.segSp--
	s.currentFrame = gs.last()
}

// ForIn names the iterators the generic for runs without calling them:
// the engine's ipairs iterator and next (Lua 5.1's, over this package's
// tables), and Real, the table a read-only proxy stands for (the identity
// for any other table), which both read through. Byte is the engine's
// string.byte, which a numeric loop's kernel calls itself (kernel.go).
type ForIn struct {
	IpairsAux, Next *lua.LFunction
	Real            func(*lua.LTable) *lua.LTable
	Byte            *lua.LFunction
}

// ForInSource is implemented by a script state's context that has ForIn.
type ForInSource interface{ ForIn() *ForIn }

// fastForIn is OP_TFORLOOP (with the jump after it) when the iterator is
// fi's ipairs iterator or next over a table: what the call would leave in
// the registers (gopher-lua's handler: the iterator, state and control
// copied above, the call's results moved down to R(A+3)), computed
// without the call. The rest (another iterator, a key next refuses, a C
// call or call stack at its limit) goes to the handler.
func fastForIn(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32, fi *ForIn) bool {
	reg := s.reg
	a := reg.array
	ra := cf.LocalBase + OpA(inst)
	if ra+8 > len(a) || gs.depth()+1 >= L.Options.CallStackSize ||
		lauxlib.Of(L).CCalls(L).N+1 >= lauxlib.MaxCCalls {
		return false
	}
	fn, ok := a[ra].(*lua.LFunction)
	if !ok {
		return false
	}
	t, ok := a[ra+1].(*lua.LTable)
	if !ok {
		return false
	}
	var res [2]lua.LValue
	ret := 0
	switch fn {
	case fi.IpairsAux:
		ctl, ok := a[ra+2].(lua.LNumber)
		i := int(ctl)
		if !ok || lua.LNumber(i) != ctl || i < -(1<<52) || i >= 1<<52 {
			return false
		}
		i++
		if v := GetInt(realOf(fi, t), i); v != lua.LNil {
			res, ret = [2]lua.LValue{NumberIn(L, float64(i)), v}, 2
		}
	case fi.Next:
		k, v, ok := Next(realOf(fi, t), a[ra+2])
		if !ok {
			return false
		}
		if k == lua.LNil {
			res, ret = [2]lua.LValue{lua.LNil}, 1
		} else {
			res, ret = [2]lua.LValue{k, v}, 2
		}
	default:
		return false
	}
	// registry.SetTop(RA+5), the copies, the results pushed above them.
	for i := reg.top; i < ra+5; i++ {
		a[i] = lua.LNil
	}
	for i := ra + 5; i < reg.top; i++ {
		a[i] = nil
	}
	a[ra+5], a[ra+4], a[ra+3] = a[ra+2], a[ra+1], a[ra]
	for i := 0; i < ret; i++ {
		a[ra+6+i] = res[i]
	}
	reg.top = ra + 6 + ret
	// callGFunction's copy of C results to R(A+3).
	nret := OpC(inst)
	for i := 0; i < nret; i++ {
		if src := ra + 6 + i; src < reg.top {
			a[ra+3+i] = a[src]
		} else {
			a[ra+3+i] = lua.LNil
		}
	}
	oldtop := reg.top
	reg.top = ra + 3 + nret
	for i := reg.top; i < oldtop; i++ {
		a[i] = nil
	}
	if v := a[ra+3]; v != lua.LNil {
		a[ra+2] = v
		cf.Pc += OpBx(cf.Fn.Proto.Code[cf.Pc]) - maxArgSbx
	}
	cf.Pc++
	return true
}

// realOf is fi.Real(t) without its lookup for a table without a
// metatable: a read-only proxy always has one (its __index).
func realOf(fi *ForIn, t *lua.LTable) *lua.LTable {
	if noMeta(t) {
		return t
	}
	return fi.Real(t)
}

// findUpvalue is gopher-lua's LState.findUpvalue: the open upvalue of
// register idx, made and linked into the state's list (ordered by
// register) when there is none, in spare when spare is not nil. It
// reports whether it used spare.
func findUpvalue(s *lState, idx int, spare *lua.Upvalue) (*lua.Upvalue, bool) {
	var prev, next *lua.Upvalue
	for uv := s.uvcache; uv != nil; uv = upvalueOf(uv).next {
		u := upvalueOf(uv)
		if u.index == idx {
			return uv, false
		}
		if u.index > idx {
			next = uv
			break
		}
		prev = uv
	}
	uv, used := spare, spare != nil
	if uv == nil {
		uv = new(lua.Upvalue)
	}
	u := upvalueOf(uv)
	u.reg, u.index = s.reg, idx
	if prev != nil {
		upvalueOf(prev).next = uv
	} else {
		s.uvcache = uv
	}
	if next != nil {
		u.next = next
	}
	return uv, used
}

// hasUpvalue reports whether register idx has an open upvalue.
func hasUpvalue(s *lState, idx int) bool {
	for uv := s.uvcache; uv != nil; uv = upvalueOf(uv).next {
		if u := upvalueOf(uv); u.index >= idx {
			return u.index == idx
		}
	}
	return false
}

// closeUpvalues is gopher-lua's LState.closeUpvalues: the open upvalues
// of registers idx and above are closed and unlinked.
//
//go:linkname closeUpvalues github.com/yuin/gopher-lua.(*LState).closeUpvalues
func closeUpvalues(L *lua.LState, idx int)

// fastClosure is OP_CLOSURE as gopher-lua's handler does it: the closure
// in R(A), each upvalue taken from the pseudo-instruction after it (a
// MOVE names a register of this frame, whose open upvalue is found or
// made; a GETUPVAL one of this function's upvalues). The closure, its
// upvalue slice and the first upvalue it opens are one allocation
// (newClosure) for up to four upvalues. It returns as coldStep does,
// having left to the handler a closure whose upvalue instructions are
// missing.
func fastClosure(L *lua.LState, s *lState, cf *callFrame, inst uint32, pc, n int, baseframe *callFrame) (*callFrame, *lua.FunctionProto, int, int, int) {
	cf.Pc = pc
	p := cf.Fn.Proto
	proto := p.FunctionPrototypes[OpBx(inst)]
	nup := int(proto.NumUpvalues)
	if cf.Pc+nup > len(p.Code) {
		return handle(L, s, cf, inst, pc, n, baseframe)
	}
	opens := false
	for _, up := range p.Code[cf.Pc : cf.Pc+nup] {
		if OpCode(up) == lua.OP_MOVE && !hasUpvalue(s, cf.LocalBase+OpB(up)) {
			opens = true
			break
		}
	}
	fn, spare := newClosure(proto, cf.Fn.Env, nup, opens)
	setReg(s.reg, cf.LocalBase+OpA(inst), fn)
	for i := 0; i < nup; i++ {
		up := p.Code[cf.Pc]
		cf.Pc++
		switch OpCode(up) {
		case lua.OP_MOVE:
			uv, used := findUpvalue(s, cf.LocalBase+OpB(up), spare)
			if used {
				spare = nil
			}
			fn.Upvalues[i] = uv
		case lua.OP_GETUPVAL:
			fn.Upvalues[i] = cf.Fn.Upvalues[OpB(up)]
		}
	}
	return cf, p, cf.LocalBase, cf.Pc, n
}

// newClosure is gopher-lua's newLFunctionL (a Lua function with nup
// upvalue slots), the slots in the same allocation as the function when
// there are few, and with them, when opens, a new upvalue (returned): a
// closure made in a loop is then one allocation, not three. The upvalue
// lives as long as the closure does, which it outlives only when another
// closure shares it.
func newClosure(proto *lua.FunctionProto, env *lua.LTable, nup int, opens bool) (*lua.LFunction, *lua.Upvalue) {
	// Each case builds its own value: a variable whose address some case
	// took would be moved to the heap for all of them.
	switch {
	case nup == 1 && opens:
		c := &struct {
			f  lua.LFunction
			u  [1]*lua.Upvalue
			uv lua.Upvalue
		}{f: lua.LFunction{Env: env, Proto: proto}}
		c.f.Upvalues = c.u[:]
		return &c.f, &c.uv
	case nup == 1:
		c := &struct {
			f lua.LFunction
			u [1]*lua.Upvalue
		}{f: lua.LFunction{Env: env, Proto: proto}}
		c.f.Upvalues = c.u[:]
		return &c.f, nil
	case nup > 1 && nup <= 4 && opens:
		c := &struct {
			f  lua.LFunction
			u  [4]*lua.Upvalue
			uv lua.Upvalue
		}{f: lua.LFunction{Env: env, Proto: proto}}
		c.f.Upvalues = c.u[:nup]
		return &c.f, &c.uv
	case nup > 1 && nup <= 4:
		c := &struct {
			f lua.LFunction
			u [4]*lua.Upvalue
		}{f: lua.LFunction{Env: env, Proto: proto}}
		c.f.Upvalues = c.u[:nup]
		return &c.f, nil
	}
	return &lua.LFunction{Env: env, Proto: proto, Upvalues: make([]*lua.Upvalue, nup)}, nil
}

// luaNil is the one nil value gopher-lua makes (lua.LNil).
var luaNil = lua.LNil.(*lua.LNilType)

// truthy is lua.LVAsBool(v) (v is neither LNil nor LFalse) without its
// interface comparisons, which call the runtime (ifaceeq) for a boolean:
// a call in pollLoop's tests would make it keep its locals on the stack.
func truthy(v lua.LValue) bool {
	switch x := v.(type) {
	case lua.LBool:
		return bool(x)
	case *lua.LNilType:
		return x != luaNil
	}
	return true
}
