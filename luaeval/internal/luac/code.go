package luac

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// The code generator: lcode.c, emitting gopher-lua's opcode numbers (Lua
// 5.1's instruction set plus OP_GETTABLEKS and OP_SETTABLEKS, which this
// generator uses wherever the key is a string constant, as gopher-lua's own
// compiler does).

// Instruction layout (gopher-lua's: opcode in the top 6 bits, then A, C, B;
// Bx and sBx in the low 18 bits).
const (
	maxArgA    = 1<<8 - 1
	maxArgB    = 1<<9 - 1
	maxArgC    = 1<<9 - 1
	maxArgBx   = 1<<18 - 1
	maxArgSbx  = maxArgBx >> 1
	bitRK      = 1 << 8
	maxIndexRK = bitRK - 1
	noReg      = maxArgA
	noJump     = -1
)

func getOp(i uint32) int  { return int(i >> 26) }
func getA(i uint32) int   { return int(i>>18) & 0xff }
func getB(i uint32) int   { return int(i & 0x1ff) }
func getC(i uint32) int   { return int(i>>9) & 0x1ff }
func getBx(i uint32) int  { return int(i & 0x3ffff) }
func getSbx(i uint32) int { return getBx(i) - maxArgSbx }

func setOp(i *uint32, op int) { *i = *i&0x03ffffff | uint32(op)<<26 }
func setA(i *uint32, a int)   { *i = *i&0xfc03ffff | uint32(a&0xff)<<18 }
func setB(i *uint32, b int)   { *i = *i&0xfffffe00 | uint32(b&0x1ff) }
func setC(i *uint32, c int)   { *i = *i&0xfffc01ff | uint32(c&0x1ff)<<9 }
func setBx(i *uint32, bx int) { *i = *i&0xfffc0000 | uint32(bx&0x3ffff) }
func setSbx(i *uint32, s int) { setBx(i, s+maxArgSbx) }

func createABC(op, a, b, c int) uint32 {
	return uint32(op)<<26 | uint32(a&0xff)<<18 | uint32(c&0x1ff)<<9 | uint32(b&0x1ff)
}

func createABx(op, a, bx int) uint32 {
	return uint32(op)<<26 | uint32(a&0xff)<<18 | uint32(bx&0x3ffff)
}

func isK(x int) bool   { return x&bitRK != 0 }
func indexK(x int) int { return x &^ bitRK }
func rkAsK(x int) int  { return x | bitRK }

// testTMode: the instructions that are followed by a jump (lopcodes.c's
// test mode).
func testTMode(op int) bool {
	switch op {
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP:
		return true
	}
	return false
}

// Expression kinds (lparser.h's expkind).
type expKind int

const (
	vVOID      expKind = iota // no value
	vNIL                      //
	vTRUE                     //
	vFALSE                    //
	vK                        // info = index of constant
	vKNUM                     // nval = numerical value
	vLOCAL                    // info = local register
	vUPVAL                    // info = index of upvalue
	vGLOBAL                   // info = index of the global's name
	vINDEXED                  // info = table register; aux = index register (or RK)
	vJMP                      // info = instruction pc
	vRELOCABLE                // info = instruction pc
	vNONRELOC                 // info = result register
	vCALL                     // info = instruction pc
	vVARARG                   // info = instruction pc
)

// expdesc is lparser.h's expdesc.
type expdesc struct {
	k    expKind
	info int
	aux  int
	nval float64
	t    int // patch list of "exit when true"
	f    int // patch list of "exit when false"
}

func (e *expdesc) init(k expKind, i int) {
	e.f, e.t = noJump, noJump
	e.k = k
	e.info = i
}

func hasJumps(e *expdesc) bool { return e.t != e.f }

func isNumeral(e *expdesc) bool { return e.k == vKNUM && e.t == noJump && e.f == noJump }

func hasMultRet(k expKind) bool { return k == vCALL || k == vVARARG }

// Operators (lcode.h).
type binOpr int

const (
	oprAdd binOpr = iota
	oprSub
	oprMul
	oprDiv
	oprMod
	oprPow
	oprConcat
	oprNE
	oprEq
	oprLT
	oprLE
	oprGT
	oprGE
	oprAnd
	oprOr
	oprNoBinOpr
)

type unOpr int

const (
	oprMinus unOpr = iota
	oprNot
	oprLen
	oprNoUnOpr
)

func (fs *funcState) getcode(e *expdesc) *uint32 { return &fs.code[e.info] }

func (fs *funcState) pc() int { return len(fs.code) }

// nil is luaK_nil.
func (fs *funcState) luaKNil(from, n int) {
	if fs.pc() > fs.lasttarget { // no jumps to current position?
		if fs.pc() == 0 { // function start?
			if from >= fs.nactvar {
				return // positions are already clean
			}
		} else {
			previous := &fs.code[fs.pc()-1]
			if getOp(*previous) == lua.OP_LOADNIL {
				pfrom := getA(*previous)
				pto := getB(*previous)
				if pfrom <= from && from <= pto+1 { // can connect both?
					if from+n-1 > pto {
						setB(previous, from+n-1)
					}
					return
				}
			}
		}
	}
	fs.codeABC(lua.OP_LOADNIL, from, from+n-1, 0) // else no optimization
}

func (fs *funcState) jump() int {
	jpc := fs.jpc // save list of jumps to here
	fs.jpc = noJump
	j := fs.codeAsBx(lua.OP_JMP, 0, noJump)
	fs.concat(&j, jpc) // keep them on hold
	return j
}

func (fs *funcState) ret(first, nret int) {
	fs.codeABC(lua.OP_RETURN, first, nret+1, 0)
}

func (fs *funcState) condJump(op, a, b, c int) int {
	fs.codeABC(op, a, b, c)
	return fs.jump()
}

func (fs *funcState) fixJump(pc, dest int) {
	jmp := &fs.code[pc]
	offset := dest - (pc + 1)
	if offset > maxArgSbx || offset < -maxArgSbx {
		fs.ls.syntaxError("control structure too long")
	}
	setSbx(jmp, offset)
}

// getLabel returns the current pc and marks it as a jump target (to avoid
// wrong optimizations with consecutive instructions not in the same basic
// block).
func (fs *funcState) getLabel() int {
	fs.lasttarget = fs.pc()
	return fs.pc()
}

func (fs *funcState) getJump(pc int) int {
	offset := getSbx(fs.code[pc])
	if offset == noJump { // point to itself represents end of list
		return noJump
	}
	return pc + 1 + offset // turn offset into absolute position
}

func (fs *funcState) getJumpControl(pc int) *uint32 {
	if pc >= 1 && testTMode(getOp(fs.code[pc-1])) {
		return &fs.code[pc-1]
	}
	return &fs.code[pc]
}

// needValue reports whether list has any jump that does not produce a value
// (or produces an inverted value).
func (fs *funcState) needValue(list int) bool {
	for ; list != noJump; list = fs.getJump(list) {
		if getOp(*fs.getJumpControl(list)) != lua.OP_TESTSET {
			return true
		}
	}
	return false
}

func (fs *funcState) patchTestReg(node, reg int) bool {
	i := fs.getJumpControl(node)
	if getOp(*i) != lua.OP_TESTSET {
		return false // cannot patch other instructions
	}
	if reg != noReg && reg != getB(*i) {
		setA(i, reg)
	} else { // no register to put value or register already has the value
		*i = createABC(lua.OP_TEST, getB(*i), 0, getC(*i))
	}
	return true
}

func (fs *funcState) removeValues(list int) {
	for ; list != noJump; list = fs.getJump(list) {
		fs.patchTestReg(list, noReg)
	}
}

func (fs *funcState) patchListAux(list, vtarget, reg, dtarget int) {
	for list != noJump {
		next := fs.getJump(list)
		if fs.patchTestReg(list, reg) {
			fs.fixJump(list, vtarget)
		} else {
			fs.fixJump(list, dtarget) // jump to default target
		}
		list = next
	}
}

func (fs *funcState) dischargeJpc() {
	fs.patchListAux(fs.jpc, fs.pc(), noReg, fs.pc())
	fs.jpc = noJump
}

func (fs *funcState) patchList(list, target int) {
	if target == fs.pc() {
		fs.patchToHere(list)
	} else {
		fs.patchListAux(list, target, noReg, target)
	}
}

func (fs *funcState) patchToHere(list int) {
	fs.getLabel()
	fs.concat(&fs.jpc, list)
}

// concat is luaK_concat: l2 appended to the list l1. Lua walks l1 to its
// last jump; fs.tail remembers each list's last jump instead, so a long
// list (a chain of a thousand 'and's, a thousand 'elseif's) costs no more
// to extend than a short one. The lists are the same, jump for jump.
func (fs *funcState) concat(l1 *int, l2 int) {
	if l2 == noJump {
		return
	}
	if *l1 == noJump {
		*l1 = l2
		return
	}
	last := int(fs.tail[*l1])
	if checkTails {
		fs.checkTail(*l1, last)
		fs.checkTail(l2, int(fs.tail[l2]))
	}
	fs.fixJump(last, l2)
	fs.tail[*l1] = fs.tail[l2]
}

// checkTails makes concat check its tails against Lua's walk (tests).
var checkTails = false

func (fs *funcState) checkTail(list, tail int) {
	for {
		next := fs.getJump(list)
		if next == noJump {
			break
		}
		list = next
	}
	if list != tail {
		panic("luac: jump list tail out of date")
	}
}

func (fs *funcState) checkStack(n int) {
	newstack := fs.freereg + n
	if newstack > fs.maxstacksize {
		if newstack >= maxStack {
			fs.ls.syntaxError("function or expression too complex")
		}
		fs.maxstacksize = newstack
	}
}

func (fs *funcState) reserveRegs(n int) {
	fs.checkStack(n)
	fs.freereg += n
}

func (fs *funcState) freeReg(reg int) {
	if !isK(reg) && reg >= fs.nactvar {
		fs.freereg--
	}
}

func (fs *funcState) freeExp(e *expdesc) {
	if e.k == vNONRELOC {
		fs.freeReg(e.info)
	}
}

// addK adds a constant, or finds it (lcode.c's addk with fs->h). Numbers
// are found by value, so 0 and -0 are one constant, as in Lua.
func (fs *funcState) addK(v lua.LValue) int {
	if len(fs.k) >= maxArgBx {
		fs.ls.runError("constant table overflow")
	}
	fs.k = append(fs.k, v)
	if len(fs.k) > fs.ls.shape.Constants {
		fs.ls.shape.Constants = len(fs.k)
	}
	return len(fs.k) - 1
}

func (fs *funcState) stringK(s string) int {
	if i, ok := fs.kstr[s]; ok {
		return i
	}
	i := fs.addK(lua.LString(s))
	if fs.kstr == nil {
		fs.kstr = make(map[string]int)
	}
	fs.kstr[s] = i
	return i
}

func (fs *funcState) numberK(r float64) int {
	if i, ok := fs.knum[r]; ok {
		return i
	}
	i := fs.addK(lua.LNumber(r))
	if fs.knum == nil {
		fs.knum = make(map[float64]int)
	}
	fs.knum[r] = i
	return i
}

func (fs *funcState) boolK(b bool) int {
	slot := &fs.kfalse
	v := lua.LValue(lua.LFalse)
	if b {
		slot, v = &fs.ktrue, lua.LTrue
	}
	if *slot < 0 {
		*slot = fs.addK(v)
	}
	return *slot
}

func (fs *funcState) nilK() int {
	if fs.knil < 0 {
		fs.knil = fs.addK(lua.LNil)
	}
	return fs.knil
}

func (fs *funcState) setReturns(e *expdesc, nresults int) {
	if e.k == vCALL { // expression is an open function call?
		setC(fs.getcode(e), nresults+1)
	} else if e.k == vVARARG {
		setB(fs.getcode(e), nresults+1)
		setA(fs.getcode(e), fs.freereg)
		fs.reserveRegs(1)
	}
}

func (fs *funcState) setMultRet(e *expdesc) { fs.setReturns(e, luaMultRet) }

func (fs *funcState) setOneRet(e *expdesc) {
	if e.k == vCALL { // expression is an open function call?
		e.k = vNONRELOC
		e.info = getA(*fs.getcode(e))
	} else if e.k == vVARARG {
		setB(fs.getcode(e), 2)
		e.k = vRELOCABLE // can relocate its simple result
	}
}

func (fs *funcState) dischargeVars(e *expdesc) {
	switch e.k {
	case vLOCAL:
		e.k = vNONRELOC
	case vUPVAL:
		e.info = fs.codeABC(lua.OP_GETUPVAL, 0, e.info, 0)
		e.k = vRELOCABLE
	case vGLOBAL:
		e.info = fs.codeABx(lua.OP_GETGLOBAL, 0, e.info)
		e.k = vRELOCABLE
	case vINDEXED:
		fs.freeReg(e.aux)
		fs.freeReg(e.info)
		op := lua.OP_GETTABLE
		if fs.isStringK(e.aux) {
			op = lua.OP_GETTABLEKS
		}
		e.info = fs.codeABC(op, 0, e.info, e.aux)
		e.k = vRELOCABLE
	case vVARARG, vCALL:
		fs.setOneRet(e)
	}
}

// isStringK reports whether the RK operand rk is a string constant: the
// table instructions then use gopher-lua's string-key forms.
func (fs *funcState) isStringK(rk int) bool {
	if !isK(rk) {
		return false
	}
	_, ok := fs.k[indexK(rk)].(lua.LString)
	return ok
}

func (fs *funcState) codeLabel(a, b, jump int) int {
	fs.getLabel() // those instructions may be jump targets
	return fs.codeABC(lua.OP_LOADBOOL, a, b, jump)
}

func (fs *funcState) discharge2Reg(e *expdesc, reg int) {
	fs.dischargeVars(e)
	switch e.k {
	case vNIL:
		fs.luaKNil(reg, 1)
	case vFALSE, vTRUE:
		b := 0
		if e.k == vTRUE {
			b = 1
		}
		fs.codeABC(lua.OP_LOADBOOL, reg, b, 0)
	case vK:
		fs.codeABx(lua.OP_LOADK, reg, e.info)
	case vKNUM:
		fs.codeABx(lua.OP_LOADK, reg, fs.numberK(e.nval))
	case vRELOCABLE:
		if getOp(*fs.getcode(e)) == lua.OP_VARARG && reg < fs.freereg-1 {
			fs.varargBelowTop(e, reg)
			break
		}
		setA(fs.getcode(e), reg)
	case vNONRELOC:
		if reg != e.info {
			fs.codeABC(lua.OP_MOVE, reg, e.info, 0)
		}
	default:
		return // vVOID or vJMP: nothing to do
	}
	e.info = reg
	e.k = vNONRELOC
}

// varargBelowTop puts the one value of '...' in register reg, which is not
// the top of the stack ("a = ..." where locals or temporaries live above a).
// Lua's OP_VARARG writes R(A) and leaves the rest alone; gopher-lua's sets
// the stack top to R(A)+1 and clears every register above, live ones
// included. So the value is loaded into the first free register, above
// everything live, and moved from there: one MOVE more than Lua, only here.
func (fs *funcState) varargBelowTop(e *expdesc, reg int) {
	if e.info != fs.pc()-1 || fs.lasttarget >= fs.pc() {
		// Never seen: the VARARG is always the last instruction when it
		// is stored. Should it not be, the MOVE could read a register
		// that code after the VARARG reused.
		panic("luac: OP_VARARG stored below the top is not the last instruction")
	}
	scratch := fs.freereg
	if scratch+1 > fs.maxstacksize {
		fs.maxstacksize = scratch + 1 // at most MAXSTACK: freereg < MAXSTACK
	}
	setA(fs.getcode(e), scratch)
	fs.codeABC(lua.OP_MOVE, reg, scratch, 0)
}

func (fs *funcState) discharge2AnyReg(e *expdesc) {
	if e.k != vNONRELOC {
		fs.reserveRegs(1)
		fs.discharge2Reg(e, fs.freereg-1)
	}
}

func (fs *funcState) exp2Reg(e *expdesc, reg int) {
	fs.discharge2Reg(e, reg)
	if e.k == vJMP {
		fs.concat(&e.t, e.info) // put this jump in 't' list
	}
	if hasJumps(e) {
		pf := noJump // position of an eventual LOAD false
		pt := noJump // position of an eventual LOAD true
		if fs.needValue(e.t) || fs.needValue(e.f) {
			fj := noJump
			if e.k != vJMP {
				fj = fs.jump()
			}
			pf = fs.codeLabel(reg, 0, 1)
			pt = fs.codeLabel(reg, 1, 0)
			fs.patchToHere(fj)
		}
		final := fs.getLabel() // position after whole expression
		fs.patchListAux(e.f, final, reg, pf)
		fs.patchListAux(e.t, final, reg, pt)
	}
	e.f, e.t = noJump, noJump
	e.info = reg
	e.k = vNONRELOC
}

func (fs *funcState) exp2NextReg(e *expdesc) {
	fs.dischargeVars(e)
	fs.freeExp(e)
	fs.reserveRegs(1)
	fs.exp2Reg(e, fs.freereg-1)
}

func (fs *funcState) exp2AnyReg(e *expdesc) int {
	fs.dischargeVars(e)
	if e.k == vNONRELOC {
		if !hasJumps(e) {
			return e.info // exp is already in a register
		}
		if e.info >= fs.nactvar { // reg. is not a local?
			fs.exp2Reg(e, e.info) // put value on it
			return e.info
		}
	}
	fs.exp2NextReg(e) // default
	return e.info
}

func (fs *funcState) exp2Val(e *expdesc) {
	if hasJumps(e) {
		fs.exp2AnyReg(e)
	} else {
		fs.dischargeVars(e)
	}
}

func (fs *funcState) exp2RK(e *expdesc) int {
	fs.exp2Val(e)
	switch e.k {
	case vKNUM, vTRUE, vFALSE, vNIL:
		if len(fs.k) <= maxIndexRK { // constant fits in RK operand?
			switch e.k {
			case vNIL:
				e.info = fs.nilK()
			case vKNUM:
				e.info = fs.numberK(e.nval)
			default:
				e.info = fs.boolK(e.k == vTRUE)
			}
			e.k = vK
			return rkAsK(e.info)
		}
	case vK:
		if e.info <= maxIndexRK { // constant fits in argC?
			return rkAsK(e.info)
		}
	}
	// not a constant in the right range: put it in a register
	return fs.exp2AnyReg(e)
}

func (fs *funcState) storeVar(v, ex *expdesc) {
	switch v.k {
	case vLOCAL:
		fs.freeExp(ex)
		fs.exp2Reg(ex, v.info)
		return
	case vUPVAL:
		e := fs.exp2AnyReg(ex)
		fs.codeABC(lua.OP_SETUPVAL, e, v.info, 0)
	case vGLOBAL:
		e := fs.exp2AnyReg(ex)
		fs.codeABx(lua.OP_SETGLOBAL, e, v.info)
	case vINDEXED:
		e := fs.exp2RK(ex)
		fs.codeSetTable(v.info, v.aux, e)
	}
	fs.freeExp(ex)
}

// codeSetTable is OP_SETTABLE, or OP_SETTABLEKS for a string constant key.
func (fs *funcState) codeSetTable(a, b, c int) {
	op := lua.OP_SETTABLE
	if fs.isStringK(b) {
		op = lua.OP_SETTABLEKS
	}
	fs.codeABC(op, a, b, c)
}

func (fs *funcState) self(e, key *expdesc) {
	fs.exp2AnyReg(e)
	fs.freeExp(e)
	fn := fs.freereg
	fs.reserveRegs(2)
	fs.codeABC(lua.OP_SELF, fn, e.info, fs.exp2RK(key))
	fs.freeExp(key)
	e.info = fn
	e.k = vNONRELOC
}

func (fs *funcState) invertJump(e *expdesc) {
	pc := fs.getJumpControl(e.info)
	a := 0
	if getA(*pc) == 0 {
		a = 1
	}
	setA(pc, a)
}

func (fs *funcState) jumpOnCond(e *expdesc, cond int) int {
	if e.k == vRELOCABLE {
		ie := *fs.getcode(e)
		if getOp(ie) == lua.OP_NOT {
			fs.removeLast() // remove previous OP_NOT
			return fs.condJump(lua.OP_TEST, getB(ie), 0, 1-cond)
		}
		// else go through
	}
	fs.discharge2AnyReg(e)
	fs.freeExp(e)
	return fs.condJump(lua.OP_TESTSET, noReg, e.info, cond)
}

func (fs *funcState) goIfTrue(e *expdesc) {
	var pc int // pc of last jump
	fs.dischargeVars(e)
	switch e.k {
	case vK, vKNUM, vTRUE:
		pc = noJump // always true; do nothing
	case vJMP:
		fs.invertJump(e)
		pc = e.info
	default:
		pc = fs.jumpOnCond(e, 0)
	}
	fs.concat(&e.f, pc) // insert last jump in 'f' list
	fs.patchToHere(e.t)
	e.t = noJump
}

func (fs *funcState) goIfFalse(e *expdesc) {
	var pc int // pc of last jump
	fs.dischargeVars(e)
	switch e.k {
	case vNIL, vFALSE:
		pc = noJump // always false; do nothing
	case vJMP:
		pc = e.info
	default:
		pc = fs.jumpOnCond(e, 1)
	}
	fs.concat(&e.t, pc) // insert last jump in 't' list
	fs.patchToHere(e.f)
	e.f = noJump
}

func (fs *funcState) codeNot(e *expdesc) {
	fs.dischargeVars(e)
	switch e.k {
	case vNIL, vFALSE:
		e.k = vTRUE
	case vK, vKNUM, vTRUE:
		e.k = vFALSE
	case vJMP:
		fs.invertJump(e)
	case vRELOCABLE, vNONRELOC:
		fs.discharge2AnyReg(e)
		fs.freeExp(e)
		e.info = fs.codeABC(lua.OP_NOT, 0, e.info, 0)
		e.k = vRELOCABLE
	}
	// interchange true and false lists
	e.f, e.t = e.t, e.f
	fs.removeValues(e.f)
	fs.removeValues(e.t)
}

func (fs *funcState) indexed(t, k *expdesc) {
	t.aux = fs.exp2RK(k)
	t.k = vINDEXED
}

func constFolding(op int, e1, e2 *expdesc) bool {
	if !isNumeral(e1) || !isNumeral(e2) {
		return false
	}
	v1, v2 := e1.nval, e2.nval
	var r float64
	switch op {
	case lua.OP_ADD:
		r = v1 + v2
	case lua.OP_SUB:
		r = v1 - v2
	case lua.OP_MUL:
		r = v1 * v2
	case lua.OP_DIV:
		if v2 == 0 {
			return false // do not attempt to divide by 0
		}
		r = v1 / v2
	case lua.OP_MOD:
		if v2 == 0 {
			return false // do not attempt to divide by 0
		}
		r = v1 - math.Floor(v1/v2)*v2
	case lua.OP_POW:
		r = lauxlib.Pow(v1, v2) // glibc's pow, as at run time

	case lua.OP_UNM:
		r = -v1
	default: // OP_LEN: no constant folding for 'len'
		return false
	}
	if r != r {
		return false // do not attempt to produce NaN
	}
	e1.nval = r
	return true
}

func (fs *funcState) codeArith(op int, e1, e2 *expdesc) {
	if constFolding(op, e1, e2) {
		return
	}
	o2 := 0
	if op != lua.OP_UNM && op != lua.OP_LEN {
		o2 = fs.exp2RK(e2)
	}
	o1 := fs.exp2RK(e1)
	if o1 > o2 {
		fs.freeExp(e1)
		fs.freeExp(e2)
	} else {
		fs.freeExp(e2)
		fs.freeExp(e1)
	}
	e1.info = fs.codeABC(op, 0, o1, o2)
	e1.k = vRELOCABLE
}

func (fs *funcState) codeComp(op, cond int, e1, e2 *expdesc) {
	o1 := fs.exp2RK(e1)
	o2 := fs.exp2RK(e2)
	fs.freeExp(e2)
	fs.freeExp(e1)
	if cond == 0 && op != lua.OP_EQ {
		// exchange args to replace by '<' or '<='
		o1, o2 = o2, o1
		cond = 1
	}
	e1.info = fs.condJump(op, cond, o1, o2)
	e1.k = vJMP
}

func (fs *funcState) prefix(op unOpr, e *expdesc) {
	var e2 expdesc
	e2.t, e2.f = noJump, noJump
	e2.k = vKNUM
	switch op {
	case oprMinus:
		if !isNumeral(e) {
			fs.exp2AnyReg(e) // cannot operate on non-numeric constants
		}
		fs.codeArith(lua.OP_UNM, e, &e2)
	case oprNot:
		fs.codeNot(e)
	case oprLen:
		fs.exp2AnyReg(e) // cannot operate on constants
		fs.codeArith(lua.OP_LEN, e, &e2)
	}
}

func (fs *funcState) infix(op binOpr, v *expdesc) {
	switch op {
	case oprAnd:
		fs.goIfTrue(v)
	case oprOr:
		fs.goIfFalse(v)
	case oprConcat:
		fs.exp2NextReg(v) // operand must be on the 'stack'
	case oprAdd, oprSub, oprMul, oprDiv, oprMod, oprPow:
		if !isNumeral(v) {
			fs.exp2RK(v)
		}
	default:
		fs.exp2RK(v)
	}
}

func (fs *funcState) posfix(op binOpr, e1, e2 *expdesc) {
	switch op {
	case oprAnd:
		fs.dischargeVars(e2)
		fs.concat(&e2.f, e1.f)
		*e1 = *e2
	case oprOr:
		fs.dischargeVars(e2)
		fs.concat(&e2.t, e1.t)
		*e1 = *e2
	case oprConcat:
		fs.exp2Val(e2)
		if e2.k == vRELOCABLE && getOp(*fs.getcode(e2)) == lua.OP_CONCAT {
			fs.freeExp(e1)
			setB(fs.getcode(e2), e1.info)
			e1.k = vRELOCABLE
			e1.info = e2.info
		} else {
			fs.exp2NextReg(e2) // operand must be on the 'stack'
			fs.codeArith(lua.OP_CONCAT, e1, e2)
		}
	case oprAdd:
		fs.codeArith(lua.OP_ADD, e1, e2)
	case oprSub:
		fs.codeArith(lua.OP_SUB, e1, e2)
	case oprMul:
		fs.codeArith(lua.OP_MUL, e1, e2)
	case oprDiv:
		fs.codeArith(lua.OP_DIV, e1, e2)
	case oprMod:
		fs.codeArith(lua.OP_MOD, e1, e2)
	case oprPow:
		fs.codeArith(lua.OP_POW, e1, e2)
	case oprEq:
		fs.codeComp(lua.OP_EQ, 1, e1, e2)
	case oprNE:
		fs.codeComp(lua.OP_EQ, 0, e1, e2)
	case oprLT:
		fs.codeComp(lua.OP_LT, 1, e1, e2)
	case oprLE:
		fs.codeComp(lua.OP_LE, 1, e1, e2)
	case oprGT:
		fs.codeComp(lua.OP_LT, 0, e1, e2)
	case oprGE:
		fs.codeComp(lua.OP_LE, 0, e1, e2)
	}
}

func (fs *funcState) fixLine(line int) {
	fs.lineinfo[fs.pc()-1] = line
}

// emit is luaK_code: append an instruction with its line.
func (fs *funcState) emit(i uint32, line int) int {
	fs.dischargeJpc() // 'pc' will change
	pc := len(fs.code)
	fs.code = append(fs.code, i)
	fs.lineinfo = append(fs.lineinfo, line)
	fs.tail = append(fs.tail, int32(pc))
	return pc
}

// removeLast drops the last instruction (jumponcond's fs->pc--).
func (fs *funcState) removeLast() {
	n := len(fs.code) - 1
	fs.code = fs.code[:n]
	fs.lineinfo = fs.lineinfo[:n]
	fs.tail = fs.tail[:n]
}

func (fs *funcState) codeABC(op, a, b, c int) int {
	return fs.emit(createABC(op, a, b, c), fs.ls.lastline)
}

func (fs *funcState) codeABx(op, a, bx int) int {
	return fs.emit(createABx(op, a, bx), fs.ls.lastline)
}

func (fs *funcState) codeAsBx(op, a, sbx int) int {
	return fs.codeABx(op, a, sbx+maxArgSbx)
}

// setList is luaK_setlist; a block number past C's 9 bits goes in the
// next word, which gopher-lua's OP_SETLIST reads as Lua's does.
func (fs *funcState) setList(base, nelems, tostore int) {
	c := (nelems-1)/lfieldsPerFlush + 1
	b := tostore
	if tostore == luaMultRet {
		b = 0
	}
	if c <= maxArgC {
		fs.codeABC(lua.OP_SETLIST, base, b, c)
	} else {
		fs.codeABC(lua.OP_SETLIST, base, b, 0)
		fs.emit(uint32(c), fs.ls.lastline)
	}
	fs.freereg = base + 1 // free registers with list values
}

// int2fb is lobject.c:luaO_int2fb, the "floating point byte" NEWTABLE's B
// and C carry: eeeeexxx, (1xxx) * 2^(eeeee-1) when eeeee is not 0.
func int2fb(x uint) int {
	e := 0
	for x >= 16 {
		x = (x + 1) >> 1
		e++
	}
	if x < 8 {
		return int(x)
	}
	return (e+1)<<3 | (int(x) - 8)
}
