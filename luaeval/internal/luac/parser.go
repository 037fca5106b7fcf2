package luac

import (
	"strconv"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// The parser: lparser.c. One pass, no syntax tree: each rule emits its code
// as it is recognised, through the code generator (code.go).

// MaxCCalls is LUAI_MAXCCALLS: the syntax levels (and C calls) Lua allows.
const MaxCCalls = 200

// Lua 5.1's limits (luaconf.h, llimits.h, lopcodes.h).
const (
	maxCCalls       = MaxCCalls // LUAI_MAXCCALLS: syntax levels
	maxVars         = 200       // LUAI_MAXVARS: active locals per function
	maxUpvalues     = 60        // LUAI_MAXUPVALUES
	maxStack        = 250       // MAXSTACK: registers per function
	maxInt          = 1<<31 - 3 // MAX_INT (INT_MAX-2)
	maxLocVars      = 1<<15 - 1 // SHRT_MAX: local variable records per function
	lfieldsPerFlush = 50        // LFIELDS_PER_FLUSH
	luaMultRet      = -1        // LUA_MULTRET
)

// Vararg flags (lobject.h), the same bits as gopher-lua's.
const (
	varargHasArg   = lua.VarArgHasArg
	varargIsVararg = lua.VarArgIsVarArg
	varargNeedsArg = lua.VarArgNeedsArg
)

// lexState is llex.h's LexState, with what the parser and the caller need.
type lexState struct {
	src        []byte
	pos        int
	current    int // current character
	linenumber int // input line counter
	lastline   int // line of last token 'consumed'
	t          token
	ahead      token // look ahead token (tkEOS: none)
	fs         *funcState
	buff       []byte
	source     string // the chunk's name in compile errors
	sourceName string // the chunk's name in run-time errors (SourceName)
	nCcalls    int    // L->nCcalls
	names      map[string]string

	ntokens   int
	pollAt    int
	interrupt func() error

	// Expression descriptors for subExpr's right operands and
	// primaryExp's keys, one of each per syntax level (a level has at most
	// one of each in use): kept here, they are not allocated per operator.
	// Blocks of 16 levels, made as deep sources need them.
	scratch [(maxCCalls + 16) / 16]*[16][2]expdesc

	chain  int // see Shape.Depth
	shape  Shape
	protos []*lua.FunctionProto // every prototype made, innermost first
}

// funcState is lparser.h's FuncState, with the prototype being built.
type funcState struct {
	prev       *funcState
	ls         *lexState
	bl         *blockCnt
	lasttarget int // 'pc' of last 'jump target'
	jpc        int // list of pending jumps to 'pc'
	freereg    int // first free register
	nactvar    int // number of active local variables
	upvalues   [maxUpvalues]upvalDesc
	actvar     [maxVars]int // declared-variable stack

	// Name lookups in O(1), where Lua searches: the active local of each
	// name (shadow[i] is what active local i hides, or -1), and the names
	// already found outside this function (an upvalue's index, or -1 for
	// a global). The enclosing functions' scopes cannot change while this
	// one is compiled, so a name found outside stays found.
	actIndex map[string]int
	shadow   [maxVars]int
	resolved map[string]int

	// The prototype (lobject.h's Proto).
	code            []uint32
	lineinfo        []int
	tail            []int32 // tail[j]: last jump of the list starting at j
	k               []lua.LValue
	kstr            map[string]int
	knum            map[float64]int
	ktrue, kfalse   int
	knil            int
	p               []*lua.FunctionProto
	locvars         []*lua.DbgLocalInfo
	locvarSlab      []lua.DbgLocalInfo // where locvars point, allocated 16 at a time
	upvalNames      []string
	calls           []lua.DbgCall
	isVararg        uint8
	numparams       int
	maxstacksize    int
	linedefined     int
	lastlinedefined int
}

type upvalDesc struct {
	k    expKind
	info int
}

// blockCnt is lparser.c's BlockCnt.
type blockCnt struct {
	previous    *blockCnt
	breaklist   int  // list of jumps out of this loop
	nactvar     int  // # active locals outside the breakable structure
	upval       bool // true if some variable in the block is an upvalue
	isbreakable bool // true if 'block' is a loop
}

func (ls *lexState) errorExpected(tok int) {
	ls.syntaxError("'" + token2str(tok) + "' expected")
}

func (fs *funcState) errorLimit(limit int, what string) {
	var msg string
	if fs.linedefined == 0 {
		msg = "main function has more than " + strconv.Itoa(limit) + " " + what
	} else {
		msg = "function at line " + strconv.Itoa(fs.linedefined) + " has more than " + strconv.Itoa(limit) + " " + what
	}
	fs.ls.lexError(msg, 0)
}

func (fs *funcState) checkLimit(v, l int, what string) {
	if v > l {
		fs.errorLimit(l, what)
	}
}

func (ls *lexState) testNext(c int) bool {
	if ls.t.tok == c {
		ls.luaXNext()
		return true
	}
	return false
}

func (ls *lexState) check(c int) {
	if ls.t.tok != c {
		ls.errorExpected(c)
	}
}

func (ls *lexState) checkNextTok(c int) {
	ls.check(c)
	ls.luaXNext()
}

func (ls *lexState) checkCondition(c bool, msg string) {
	if !c {
		ls.syntaxError(msg)
	}
}

func (ls *lexState) checkMatch(what, who, where int) {
	if !ls.testNext(what) {
		if where == ls.linenumber {
			ls.errorExpected(what)
		} else {
			ls.syntaxError("'" + token2str(what) + "' expected (to close '" + token2str(who) + "' at line " + strconv.Itoa(where) + ")")
		}
	}
}

func (ls *lexState) strCheckName() string {
	ls.check(tkName)
	s := ls.t.s
	ls.luaXNext()
	return s
}

func (ls *lexState) codeString(e *expdesc, s string) {
	e.init(vK, ls.fs.stringK(s))
}

func (ls *lexState) checkName(e *expdesc) {
	ls.codeString(e, ls.strCheckName())
}

func (ls *lexState) registerLocalVar(name string) int {
	fs := ls.fs
	if len(fs.locvars) >= maxLocVars {
		ls.runError("too many local variables")
	}
	if len(fs.locvarSlab) == 0 {
		fs.locvarSlab = make([]lua.DbgLocalInfo, 16)
	}
	v := &fs.locvarSlab[0]
	fs.locvarSlab = fs.locvarSlab[1:]
	v.Name = name
	fs.locvars = append(fs.locvars, v)
	return len(fs.locvars) - 1
}

func (ls *lexState) newLocalVar(name string, n int) {
	fs := ls.fs
	fs.checkLimit(fs.nactvar+n+1, maxVars, "local variables")
	fs.actvar[fs.nactvar+n] = ls.registerLocalVar(name)
}

func (fs *funcState) getLocVar(i int) *lua.DbgLocalInfo { return fs.locvars[fs.actvar[i]] }

func (ls *lexState) adjustLocalVars(nvars int) {
	fs := ls.fs
	fs.nactvar += nvars
	for ; nvars > 0; nvars-- {
		i := fs.nactvar - nvars
		v := fs.getLocVar(i)
		v.StartPc = fs.pc()
		if fs.actIndex == nil {
			fs.actIndex = make(map[string]int)
		}
		if prev, ok := fs.actIndex[v.Name]; ok {
			fs.shadow[i] = prev
		} else {
			fs.shadow[i] = -1
		}
		fs.actIndex[v.Name] = i
	}
}

func (ls *lexState) removeVars(tolevel int) {
	fs := ls.fs
	for fs.nactvar > tolevel {
		fs.nactvar--
		v := fs.getLocVar(fs.nactvar)
		v.EndPc = fs.pc()
		if prev := fs.shadow[fs.nactvar]; prev >= 0 {
			fs.actIndex[v.Name] = prev
		} else {
			delete(fs.actIndex, v.Name)
		}
	}
}

func (fs *funcState) indexUpvalue(name string, v *expdesc) int {
	for i := 0; i < len(fs.upvalNames); i++ {
		if fs.upvalues[i].k == v.k && fs.upvalues[i].info == v.info {
			return i
		}
	}
	// new one
	fs.checkLimit(len(fs.upvalNames)+1, maxUpvalues, "upvalues")
	n := len(fs.upvalNames)
	fs.upvalNames = append(fs.upvalNames, name)
	fs.upvalues[n] = upvalDesc{k: v.k, info: v.info}
	return n
}

// searchVar is the active local named n (the latest declared), or -1.
func (fs *funcState) searchVar(n string) int {
	if i, ok := fs.actIndex[n]; ok {
		return i
	}
	return -1 // not found
}

func (fs *funcState) markUpval(level int) {
	bl := fs.bl
	for bl != nil && bl.nactvar > level {
		bl = bl.previous
	}
	if bl != nil {
		bl.upval = true
	}
}

// singleVarAux recurses once per enclosing function, at most maxCCalls
// deep (each function body is a syntax level).
func singleVarAux(fs *funcState, n string, v *expdesc, base bool) expKind {
	if fs == nil { // no more levels?
		v.init(vGLOBAL, noReg) // default is global variable
		return vGLOBAL
	}
	if i := fs.searchVar(n); i >= 0 { // look up at current level
		v.init(vLOCAL, i)
		if !base {
			fs.markUpval(i) // local will be used as an upval
		}
		return vLOCAL
	}
	// not found at current level; try upper one
	if r, ok := fs.resolved[n]; ok {
		if r < 0 {
			v.init(vGLOBAL, noReg)
			return vGLOBAL
		}
		v.init(vUPVAL, r)
		return vUPVAL
	}
	if fs.resolved == nil {
		fs.resolved = make(map[string]int)
	}
	if singleVarAux(fs.prev, n, v, false) == vGLOBAL {
		fs.resolved[n] = -1
		return vGLOBAL
	}
	v.info = fs.indexUpvalue(n, v) // else was LOCAL or UPVAL
	v.k = vUPVAL                   // upvalue in this level
	fs.resolved[n] = v.info
	return vUPVAL
}

func (ls *lexState) singleVar(v *expdesc) {
	name := ls.strCheckName()
	fs := ls.fs
	if singleVarAux(fs, name, v, true) == vGLOBAL {
		v.info = fs.stringK(name) // info points to global name
	}
}

func (ls *lexState) adjustAssign(nvars, nexps int, e *expdesc) {
	fs := ls.fs
	extra := nvars - nexps
	if hasMultRet(e.k) {
		extra++ // includes call itself
		if extra < 0 {
			extra = 0
		}
		fs.setReturns(e, extra) // last exp. provides the difference
		if extra > 1 {
			fs.reserveRegs(extra - 1)
		}
	} else {
		if e.k != vVOID {
			fs.exp2NextReg(e) // close last expression
		}
		if extra > 0 {
			reg := fs.freereg
			fs.reserveRegs(extra)
			fs.luaKNil(reg, extra)
		}
	}
}

func (ls *lexState) enterLevel() {
	ls.nCcalls++
	if ls.nCcalls > maxCCalls {
		ls.lexError("chunk has too many syntax levels", 0)
	}
	if d := ls.nCcalls + ls.chain; d > ls.shape.Depth {
		ls.shape.Depth = d
	}
}

func (ls *lexState) leaveLevel() { ls.nCcalls-- }

// link counts one more link of a chain (a binary operator, a suffix, an
// elseif) for Shape.Depth; unlink takes n back when the chain ends.
func (ls *lexState) link() {
	ls.chain++
	if d := ls.nCcalls + ls.chain; d > ls.shape.Depth {
		ls.shape.Depth = d
	}
}

func (ls *lexState) unlink(n int) { ls.chain -= n }

func (fs *funcState) enterBlock(bl *blockCnt, isbreakable bool) {
	bl.breaklist = noJump
	bl.isbreakable = isbreakable
	bl.nactvar = fs.nactvar
	bl.upval = false
	bl.previous = fs.bl
	fs.bl = bl
}

func (fs *funcState) leaveBlock() {
	bl := fs.bl
	fs.bl = bl.previous
	fs.ls.removeVars(bl.nactvar)
	if bl.upval {
		fs.codeABC(lua.OP_CLOSE, bl.nactvar, 0, 0)
	}
	fs.freereg = fs.nactvar // free registers
	fs.patchToHere(bl.breaklist)
}

func (ls *lexState) pushClosure(fn *funcState, p *lua.FunctionProto, v *expdesc) {
	fs := ls.fs
	if len(fs.p) >= maxArgBx {
		ls.runError("constant table overflow")
	}
	fs.p = append(fs.p, p)
	v.init(vRELOCABLE, fs.codeABx(lua.OP_CLOSURE, 0, len(fs.p)-1))
	for i := range fn.upvalNames {
		op := lua.OP_GETUPVAL
		if fn.upvalues[i].k == vLOCAL {
			op = lua.OP_MOVE
		}
		fs.codeABC(op, 0, fn.upvalues[i].info, 0)
	}
}

// funcStates keeps the funcStates of finished functions: one is over 4 KB
// (its fixed arrays of locals and upvalues), and a FUNCTION RESTORE of
// 10,000 libraries allocated 20,000 of them, much of its time going to
// the collector. Nothing holds one once its function is closed: its
// slices and maps went to the prototype.
var funcStates = sync.Pool{New: func() any { return new(funcState) }}

// putFuncState clears fs, so the pool keeps no source or prototype alive,
// and returns it to the pool. A compile error's panic skips it: its
// recovery may still read the chain of funcStates.
func putFuncState(fs *funcState) {
	*fs = funcState{}
	funcStates.Put(fs)
}

func (ls *lexState) openFunc(fs *funcState) {
	*fs = funcState{
		prev:         ls.fs, // linked list of funcstates
		ls:           ls,
		lasttarget:   -1,
		jpc:          noJump,
		maxstacksize: 2, // registers 0/1 are always valid
		ktrue:        -1,
		kfalse:       -1,
		knil:         -1,
	}
	if fs.prev == nil {
		// Room for a lock script's main function (under 64 instructions).
		// Nested functions start small: a source may hold 262,143 of them.
		fs.code = make([]uint32, 0, 64)
		fs.lineinfo = make([]int, 0, 64)
		fs.tail = make([]int32, 0, 64)
		fs.k = make([]lua.LValue, 0, 16)
		fs.locvars = make([]*lua.DbgLocalInfo, 0, 8)
	}
	ls.fs = fs
}

// closeFunc is close_func: the final return, and the prototype as
// gopher-lua's VM reads it.
func (ls *lexState) closeFunc() *lua.FunctionProto {
	fs := ls.fs
	ls.removeVars(0)
	fs.ret(0, 0) // final return
	p := &lua.FunctionProto{
		SourceName:      ls.sourceName,
		LineDefined:     fs.linedefined,
		LastLineDefined: fs.lastlinedefined,
		NumUpvalues:     uint8(len(fs.upvalNames)),
		NumParameters:   uint8(fs.numparams),
		IsVarArg:        fs.isVararg,
		// One register more than Lua's maxstacksize: gopher-lua's
		// OP_TAILCALL moves the callee's frame down one register short,
		// leaving the last one as the caller had it (a missing argument
		// would not be nil); the spare register is the one left behind.
		NumUsedRegisters:   uint8(fs.maxstacksize + 1),
		Code:               fs.code,
		Constants:          fs.k,
		FunctionPrototypes: fs.p,
		DbgSourcePositions: fs.lineinfo,
		DbgLocals:          fs.locvars,
		DbgCalls:           fs.calls,
		DbgUpvalues:        fs.upvalNames,
	}
	if p.Constants == nil {
		p.Constants = []lua.LValue{}
	}
	ls.fs = fs.prev
	ls.protos = append(ls.protos, p)
	return p
}

// ---- grammar rules ----

func (ls *lexState) field(v *expdesc) {
	// field -> ['.' | ':'] NAME
	fs := ls.fs
	var key expdesc
	fs.exp2AnyReg(v)
	ls.luaXNext() // skip the dot or colon
	ls.checkName(&key)
	fs.indexed(v, &key)
}

func (ls *lexState) yindex(v *expdesc) {
	// index -> '[' expr ']'
	ls.luaXNext() // skip the '['
	ls.expr(v)
	ls.fs.exp2Val(v)
	ls.checkNextTok(']')
}

// consControl is lparser.c's ConsControl.
type consControl struct {
	v       expdesc  // last list item read
	t       *expdesc // table descriptor
	nh      int      // total number of 'record' elements
	na      int      // total number of array elements
	tostore int      // number of array elements pending to be stored
}

func (ls *lexState) recField(cc *consControl) {
	// recfield -> (NAME | '['exp1']') = exp1
	fs := ls.fs
	reg := fs.freereg
	var key, val expdesc
	if ls.t.tok == tkName {
		fs.checkLimit(cc.nh, maxInt, "items in a constructor")
		ls.checkName(&key)
	} else { // ls.t.tok == '['
		ls.yindex(&key)
	}
	cc.nh++
	ls.checkNextTok('=')
	rkkey := fs.exp2RK(&key)
	ls.expr(&val)
	fs.codeSetTable(cc.t.info, rkkey, fs.exp2RK(&val))
	fs.freereg = reg // free registers
}

func (fs *funcState) closeListField(cc *consControl) {
	if cc.v.k == vVOID {
		return // there is no list item
	}
	fs.exp2NextReg(&cc.v)
	cc.v.k = vVOID
	if cc.tostore == lfieldsPerFlush {
		fs.setList(cc.t.info, cc.na, cc.tostore) // flush
		cc.tostore = 0                           // no more items pending
	}
}

func (fs *funcState) lastListField(cc *consControl) {
	if cc.tostore == 0 {
		return
	}
	if hasMultRet(cc.v.k) {
		fs.setMultRet(&cc.v)
		fs.setList(cc.t.info, cc.na, luaMultRet)
		cc.na-- // do not count last expression (unknown number of elements)
	} else {
		if cc.v.k != vVOID {
			fs.exp2NextReg(&cc.v)
		}
		fs.setList(cc.t.info, cc.na, cc.tostore)
	}
}

func (ls *lexState) listField(cc *consControl) {
	ls.expr(&cc.v)
	ls.fs.checkLimit(cc.na, maxInt, "items in a constructor")
	cc.na++
	cc.tostore++
}

func (ls *lexState) constructor(t *expdesc) {
	fs := ls.fs
	line := ls.linenumber
	pc := fs.codeABC(lua.OP_NEWTABLE, 0, 0, 0)
	var cc consControl
	cc.t = t
	t.init(vRELOCABLE, pc)
	cc.v.init(vVOID, 0) // no value (yet)
	fs.exp2NextReg(t)   // fix it at stack top (for gc)
	ls.checkNextTok('{')
	for {
		if ls.t.tok == '}' {
			break
		}
		fs.closeListField(&cc)
		switch ls.t.tok {
		case tkName: // may be listfields or recfields
			ls.lookahead()
			if ls.ahead.tok != '=' { // expression?
				ls.listField(&cc)
			} else {
				ls.recField(&cc)
			}
		case '[': // constructor_item -> recfield
			ls.recField(&cc)
		default: // constructor_part -> listfield
			ls.listField(&cc)
		}
		if !ls.testNext(',') && !ls.testNext(';') {
			break
		}
	}
	ls.checkMatch('}', '{', line)
	fs.lastListField(&cc)
	setB(&fs.code[pc], int2fb(uint(cc.na))) // set initial array size
	setC(&fs.code[pc], int2fb(uint(cc.nh))) // set initial table size
	if n := cc.na + cc.nh; n > ls.shape.Items {
		ls.shape.Items = n
	}
}

func (ls *lexState) parList() {
	// parlist -> [ param { ',' param } ]
	fs := ls.fs
	nparams := 0
	fs.isVararg = 0
	if ls.t.tok != ')' { // is 'parlist' not empty?
		for {
			switch ls.t.tok {
			case tkName: // param -> NAME
				ls.newLocalVar(ls.strCheckName(), nparams)
				nparams++
			case tkDots: // param -> '...'
				ls.luaXNext()
				// LUA_COMPAT_VARARG: use 'arg' as default name
				ls.newLocalVar("arg", nparams)
				nparams++
				fs.isVararg = varargHasArg | varargNeedsArg
				fs.isVararg |= varargIsVararg
			default:
				ls.syntaxError("<name> or '...' expected")
			}
			if fs.isVararg != 0 || !ls.testNext(',') {
				break
			}
		}
	}
	ls.adjustLocalVars(nparams)
	fs.numparams = fs.nactvar - int(fs.isVararg&varargHasArg)
	fs.reserveRegs(fs.nactvar) // reserve register for parameters
}

func (ls *lexState) body(e *expdesc, needself bool, line int) {
	// body ->  '(' parlist ')' chunk END
	nfs := funcStates.Get().(*funcState)
	ls.openFunc(nfs)
	nfs.linedefined = line
	ls.checkNextTok('(')
	if needself {
		ls.newLocalVar("self", 0)
		ls.adjustLocalVars(1)
	}
	ls.parList()
	ls.checkNextTok(')')
	ls.chunk()
	nfs.lastlinedefined = ls.linenumber
	ls.checkMatch(tkEnd, tkFunction, line)
	p := ls.closeFunc()
	ls.pushClosure(nfs, p, e)
	putFuncState(nfs)
}

func (ls *lexState) explist1(v *expdesc) int {
	// explist1 -> expr { ',' expr }
	n := 1 // at least one expression
	ls.expr(v)
	for ls.testNext(',') {
		ls.fs.exp2NextReg(v)
		ls.expr(v)
		n++
	}
	return n
}

func (ls *lexState) funcArgs(f *expdesc, name string) {
	fs := ls.fs
	var args expdesc
	line := ls.linenumber
	switch ls.t.tok {
	case '(': // funcargs -> '(' [ explist1 ] ')'
		if line != ls.lastline {
			ls.syntaxError("ambiguous syntax (function call x new statement)")
		}
		ls.luaXNext()
		if ls.t.tok == ')' { // arg list is empty?
			args.k = vVOID
		} else {
			ls.explist1(&args)
			fs.setMultRet(&args)
		}
		ls.checkMatch(')', '(', line)
	case '{': // funcargs -> constructor
		ls.constructor(&args)
	case tkString: // funcargs -> STRING
		ls.codeString(&args, ls.t.s)
		ls.luaXNext() // must use 'seminfo' before 'next'
	default:
		ls.syntaxError("function arguments expected")
	}
	base := f.info // base register for call
	var nparams int
	if hasMultRet(args.k) {
		nparams = luaMultRet // open call
	} else {
		if args.k != vVOID {
			fs.exp2NextReg(&args) // close last argument
		}
		nparams = fs.freereg - (base + 1)
	}
	f.init(vCALL, fs.codeABC(lua.OP_CALL, base, nparams+1, 2))
	fs.calls = append(fs.calls, lua.DbgCall{Name: name, Pc: f.info})
	fs.fixLine(line)
	fs.freereg = base + 1 // call removes function and arguments and leaves (unless changed) one result
}

// calledName is the name ldebug.c:getfuncname finds for a function called
// from register reg, which the last instruction has just loaded (Lua
// works it out from the code when the error happens; gopher-lua reads it
// from DbgCalls). "?" when it has none.
func (fs *funcState) calledName(reg int, jumps bool) string {
	if jumps || fs.pc() == 0 {
		return "?"
	}
	i := fs.code[fs.pc()-1]
	if getA(i) != reg {
		return "?"
	}
	switch getOp(i) {
	case lua.OP_GETGLOBAL:
		if s, ok := fs.k[getBx(i)].(lua.LString); ok {
			return string(s)
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		return fs.kname(getC(i))
	case lua.OP_GETUPVAL:
		return fs.upvalNames[getB(i)]
	case lua.OP_MOVE:
		if b := getB(i); b < reg && b < fs.nactvar {
			return fs.getLocVar(b).Name
		}
	}
	return "?"
}

// kname is ldebug.c's kname: a string constant's text, else "?".
func (fs *funcState) kname(rk int) string {
	if isK(rk) {
		if s, ok := fs.k[indexK(rk)].(lua.LString); ok {
			return string(s)
		}
	}
	return "?"
}

// ---- expression parsing ----

func (ls *lexState) prefixExp(v *expdesc) {
	// prefixexp -> NAME | '(' expr ')'
	switch ls.t.tok {
	case '(':
		line := ls.linenumber
		ls.luaXNext()
		ls.expr(v)
		ls.checkMatch(')', '(', line)
		ls.fs.dischargeVars(v)
	case tkName:
		ls.singleVar(v)
	default:
		ls.syntaxError("unexpected symbol")
	}
}

func (ls *lexState) primaryExp(v *expdesc) {
	// primaryexp ->
	//    prefixexp { '.' NAME | '[' exp ']' | ':' NAME funcargs | funcargs }
	fs := ls.fs
	ls.prefixExp(v)
	n := 0
	for {
		switch ls.t.tok {
		case '.': // field
			ls.field(v)
		case '[': // '[' exp1 ']'
			key := ls.key()
			fs.exp2AnyReg(v)
			ls.yindex(key)
			fs.indexed(v, key)
		case ':': // ':' NAME funcargs
			key := ls.key()
			ls.luaXNext()
			ls.checkName(key)
			fs.self(v, key)
			ls.funcArgs(v, fs.kname(getC(fs.code[fs.pc()-1])))
		case '(', tkString, '{': // funcargs
			jumps := hasJumps(v)
			fs.exp2NextReg(v)
			ls.funcArgs(v, fs.calledName(v.info, jumps))
		default:
			ls.unlink(n)
			n = 0
			return
		}
		n++
		ls.link()
	}
}

// key is a fresh expression descriptor for a key at this syntax level.
func (ls *lexState) key() *expdesc { return ls.scratchExp(1) }

// scratchExp is this syntax level's descriptor number i, cleared.
func (ls *lexState) scratchExp(i int) *expdesc {
	b := &ls.scratch[ls.nCcalls/16]
	if *b == nil {
		*b = new([16][2]expdesc)
	}
	e := &(*b)[ls.nCcalls%16][i]
	*e = expdesc{}
	return e
}

func (ls *lexState) simpleExp(v *expdesc) {
	// simpleexp -> NUMBER | STRING | NIL | true | false | ... |
	//              constructor | FUNCTION body | primaryexp
	switch ls.t.tok {
	case tkNumber:
		v.init(vKNUM, 0)
		v.nval = ls.t.r
	case tkString:
		ls.codeString(v, ls.t.s)
	case tkNil:
		v.init(vNIL, 0)
	case tkTrue:
		v.init(vTRUE, 0)
	case tkFalse:
		v.init(vFALSE, 0)
	case tkDots: // vararg
		fs := ls.fs
		ls.checkCondition(fs.isVararg != 0, "cannot use '...' outside a vararg function")
		fs.isVararg &^= varargNeedsArg // don't need 'arg'
		v.init(vVARARG, fs.codeABC(lua.OP_VARARG, 0, 1, 0))
	case '{': // constructor
		ls.constructor(v)
		return
	case tkFunction:
		ls.luaXNext()
		ls.body(v, false, ls.linenumber)
		return
	default:
		ls.primaryExp(v)
		return
	}
	ls.luaXNext()
}

func getUnOpr(op int) unOpr {
	switch op {
	case tkNot:
		return oprNot
	case '-':
		return oprMinus
	case '#':
		return oprLen
	}
	return oprNoUnOpr
}

func getBinOpr(op int) binOpr {
	switch op {
	case '+':
		return oprAdd
	case '-':
		return oprSub
	case '*':
		return oprMul
	case '/':
		return oprDiv
	case '%':
		return oprMod
	case '^':
		return oprPow
	case tkConcat:
		return oprConcat
	case tkNE:
		return oprNE
	case tkEq:
		return oprEq
	case '<':
		return oprLT
	case tkLE:
		return oprLE
	case '>':
		return oprGT
	case tkGE:
		return oprGE
	case tkAnd:
		return oprAnd
	case tkOr:
		return oprOr
	}
	return oprNoBinOpr
}

var priority = [...]struct{ left, right int }{ // ORDER OPR
	{6, 6}, {6, 6}, {7, 7}, {7, 7}, {7, 7}, // '+' '-' '*' '/' '%'
	{10, 9}, {5, 4}, // power and concat (right associative)
	{3, 3}, {3, 3}, // equality and inequality
	{3, 3}, {3, 3}, {3, 3}, {3, 3}, // order
	{2, 2}, {1, 1}, // logical (and/or)
}

const unaryPriority = 8 // priority for unary operators

// subExpr is subexpr -> (simpleexp | unop subexpr) { binop subexpr },
// where binop is any binary operator with a priority higher than limit.
// A left-associative chain (a+b+c ...) is this loop, not recursion.
func (ls *lexState) subExpr(v *expdesc, limit int) binOpr {
	ls.enterLevel()
	uop := getUnOpr(ls.t.tok)
	if uop != oprNoUnOpr {
		ls.luaXNext()
		ls.subExpr(v, unaryPriority)
		ls.fs.prefix(uop, v)
	} else {
		ls.simpleExp(v)
	}
	// expand while operators have priorities higher than 'limit'
	op := getBinOpr(ls.t.tok)
	n := 0
	for op != oprNoBinOpr && priority[op].left > limit {
		v2 := ls.scratchExp(0)
		ls.luaXNext()
		ls.fs.infix(op, v)
		n++
		ls.link()
		// read sub-expression with higher priority
		nextop := ls.subExpr(v2, priority[op].right)
		ls.fs.posfix(op, v, v2)
		op = nextop
	}
	ls.unlink(n)
	ls.leaveLevel()
	return op // return first untreated operator
}

func (ls *lexState) expr(v *expdesc) { ls.subExpr(v, 0) }

// ---- statements ----

func blockFollow(tok int) bool {
	switch tok {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

func (ls *lexState) block() {
	// block -> chunk
	fs := ls.fs
	var bl blockCnt
	fs.enterBlock(&bl, false)
	ls.chunk()
	fs.leaveBlock()
}

// lhsAssign chains the variables on the left of an assignment.
type lhsAssign struct {
	prev *lhsAssign
	v    expdesc // variable (global, local, upvalue, or indexed)
}

// checkConflict: in an assignment to a local variable, is the local
// needed in a previous assignment (to a table)? If so, save its original
// value in a safe place and use the copy in the previous assignment.
func (ls *lexState) checkConflict(lh *lhsAssign, v *expdesc) {
	fs := ls.fs
	extra := fs.freereg // eventual position to save local variable
	conflict := false
	for ; lh != nil; lh = lh.prev {
		if lh.v.k == vINDEXED {
			if lh.v.info == v.info { // conflict?
				conflict = true
				lh.v.info = extra // previous assignment will use safe copy
			}
			if lh.v.aux == v.info { // conflict?
				conflict = true
				lh.v.aux = extra // previous assignment will use safe copy
			}
		}
	}
	if conflict {
		fs.codeABC(lua.OP_MOVE, fs.freereg, v.info, 0) // make copy
		fs.reserveRegs(1)
	}
}

// assignment recurses once per variable on the left, at most maxCCalls
// deep ("variables in assignment").
func (ls *lexState) assignment(lh *lhsAssign, nvars int) {
	var e expdesc
	ls.checkCondition(vLOCAL <= lh.v.k && lh.v.k <= vINDEXED, "syntax error")
	if ls.testNext(',') { // assignment -> ',' primaryexp assignment
		var nv lhsAssign
		nv.prev = lh
		ls.primaryExp(&nv.v)
		if nv.v.k == vLOCAL {
			ls.checkConflict(lh, &nv.v)
		}
		ls.fs.checkLimit(nvars, maxCCalls-ls.nCcalls, "variables in assignment")
		ls.assignment(&nv, nvars+1)
	} else { // assignment -> '=' explist1
		ls.checkNextTok('=')
		nexps := ls.explist1(&e)
		if nexps != nvars {
			ls.adjustAssign(nvars, nexps, &e)
			if nexps > nvars {
				ls.fs.freereg -= nexps - nvars // remove extra values
			}
		} else {
			ls.fs.setOneRet(&e) // close last expression
			ls.fs.storeVar(&lh.v, &e)
			return // avoid default
		}
	}
	e.init(vNONRELOC, ls.fs.freereg-1) // default assignment
	ls.fs.storeVar(&lh.v, &e)
}

func (ls *lexState) cond() int {
	// cond -> exp
	var v expdesc
	ls.expr(&v) // read condition
	if v.k == vNIL {
		v.k = vFALSE // 'falses' are all equal here
	}
	ls.fs.goIfTrue(&v)
	return v.f
}

func (ls *lexState) breakStat() {
	fs := ls.fs
	bl := fs.bl
	upval := false
	for bl != nil && !bl.isbreakable {
		upval = upval || bl.upval
		bl = bl.previous
	}
	if bl == nil {
		ls.syntaxError("no loop to break")
	}
	if upval {
		fs.codeABC(lua.OP_CLOSE, bl.nactvar, 0, 0)
	}
	fs.concat(&bl.breaklist, fs.jump())
}

func (ls *lexState) whileStat(line int) {
	// whilestat -> WHILE cond DO block END
	fs := ls.fs
	var bl blockCnt
	ls.luaXNext() // skip WHILE
	whileinit := fs.getLabel()
	condexit := ls.cond()
	fs.enterBlock(&bl, true)
	ls.checkNextTok(tkDo)
	ls.block()
	fs.patchList(fs.jump(), whileinit)
	ls.checkMatch(tkEnd, tkWhile, line)
	fs.leaveBlock()
	fs.patchToHere(condexit) // false conditions finish the loop
}

func (ls *lexState) repeatStat(line int) {
	// repeatstat -> REPEAT block UNTIL cond
	fs := ls.fs
	repeatInit := fs.getLabel()
	var bl1, bl2 blockCnt
	fs.enterBlock(&bl1, true)  // loop block
	fs.enterBlock(&bl2, false) // scope block
	ls.luaXNext()              // skip REPEAT
	ls.chunk()
	ls.checkMatch(tkUntil, tkRepeat, line)
	condexit := ls.cond() // read condition (inside scope block)
	if !bl2.upval {       // no upvalues?
		fs.leaveBlock()                    // finish scope
		fs.patchList(condexit, repeatInit) // close the loop
	} else { // complete semantics when there are upvalues
		ls.breakStat()                      // if condition then break
		fs.patchToHere(condexit)            // else...
		fs.leaveBlock()                     // finish scope...
		fs.patchList(fs.jump(), repeatInit) // and repeat
	}
	fs.leaveBlock() // finish loop
}

func (ls *lexState) exp1() expKind {
	var e expdesc
	ls.expr(&e)
	k := e.k
	ls.fs.exp2NextReg(&e)
	return k
}

func (ls *lexState) forBody(base, line, nvars int, isnum bool) {
	// forbody -> DO block
	var bl blockCnt
	fs := ls.fs
	ls.adjustLocalVars(3) // control variables
	ls.checkNextTok(tkDo)
	var prep int
	if isnum {
		prep = fs.codeAsBx(lua.OP_FORPREP, base, noJump)
	} else {
		prep = fs.jump()
	}
	fs.enterBlock(&bl, false) // scope for declared variables
	ls.adjustLocalVars(nvars)
	fs.reserveRegs(nvars)
	ls.block()
	fs.leaveBlock() // end of scope for declared variables
	fs.patchToHere(prep)
	var endfor int
	if isnum {
		endfor = fs.codeAsBx(lua.OP_FORLOOP, base, noJump)
	} else {
		endfor = fs.codeABC(lua.OP_TFORLOOP, base, 0, nvars)
		// ldebug.c:getfuncname names the generator after its local.
		fs.calls = append(fs.calls, lua.DbgCall{Name: "(for generator)", Pc: endfor})
	}
	fs.fixLine(line) // pretend that 'OP_FOR' starts the loop
	if isnum {
		fs.patchList(endfor, prep+1)
	} else {
		fs.patchList(fs.jump(), prep+1)
	}
}

func (ls *lexState) forNum(varname string, line int) {
	// fornum -> NAME = exp1,exp1[,exp1] forbody
	fs := ls.fs
	base := fs.freereg
	ls.newLocalVar("(for index)", 0)
	ls.newLocalVar("(for limit)", 1)
	ls.newLocalVar("(for step)", 2)
	ls.newLocalVar(varname, 3)
	ls.checkNextTok('=')
	ls.exp1() // initial value
	ls.checkNextTok(',')
	ls.exp1() // limit
	if ls.testNext(',') {
		ls.exp1() // optional step
	} else { // default step = 1
		fs.codeABx(lua.OP_LOADK, fs.freereg, fs.numberK(1))
		fs.reserveRegs(1)
	}
	ls.forBody(base, line, 1, true)
}

func (ls *lexState) forList(indexname string) {
	// forlist -> NAME {,NAME} IN explist1 forbody
	fs := ls.fs
	var e expdesc
	nvars := 0
	base := fs.freereg
	// create control variables
	ls.newLocalVar("(for generator)", nvars)
	nvars++
	ls.newLocalVar("(for state)", nvars)
	nvars++
	ls.newLocalVar("(for control)", nvars)
	nvars++
	// create declared variables
	ls.newLocalVar(indexname, nvars)
	nvars++
	for ls.testNext(',') {
		ls.newLocalVar(ls.strCheckName(), nvars)
		nvars++
	}
	ls.checkNextTok(tkIn)
	line := ls.linenumber
	ls.adjustAssign(3, ls.explist1(&e), &e)
	fs.checkStack(3) // extra space to call generator
	ls.forBody(base, line, nvars-3, false)
}

func (ls *lexState) forStat(line int) {
	// forstat -> FOR (fornum | forlist) END
	fs := ls.fs
	var bl blockCnt
	fs.enterBlock(&bl, true)     // scope for loop and control variables
	ls.luaXNext()                // skip 'for'
	varname := ls.strCheckName() // first variable name
	switch ls.t.tok {
	case '=':
		ls.forNum(varname, line)
	case ',', tkIn:
		ls.forList(varname)
	default:
		ls.syntaxError("'=' or 'in' expected")
	}
	ls.checkMatch(tkEnd, tkFor, line)
	fs.leaveBlock() // loop scope ('break' jumps to this point)
}

func (ls *lexState) testThenBlock() int {
	// test_then_block -> [IF | ELSEIF] cond THEN block
	ls.luaXNext() // skip IF or ELSEIF
	condexit := ls.cond()
	ls.checkNextTok(tkThen)
	ls.block() // 'then' part
	return condexit
}

func (ls *lexState) ifStat(line int) {
	// ifstat -> IF cond THEN block {ELSEIF cond THEN block} [ELSE block] END
	fs := ls.fs
	escapelist := noJump
	flist := ls.testThenBlock() // IF cond THEN block
	n := 0
	for ls.t.tok == tkElseif {
		fs.concat(&escapelist, fs.jump())
		fs.patchToHere(flist)
		n++
		ls.link()
		flist = ls.testThenBlock() // ELSEIF cond THEN block
	}
	ls.unlink(n)
	if ls.t.tok == tkElse {
		fs.concat(&escapelist, fs.jump())
		fs.patchToHere(flist)
		ls.luaXNext() // skip ELSE (after patch, for correct line info)
		ls.block()    // 'else' part
	} else {
		fs.concat(&escapelist, flist)
	}
	fs.patchToHere(escapelist)
	ls.checkMatch(tkEnd, tkIf, line)
}

func (ls *lexState) localFunc() {
	var v, b expdesc
	fs := ls.fs
	ls.newLocalVar(ls.strCheckName(), 0)
	v.init(vLOCAL, fs.freereg)
	fs.reserveRegs(1)
	ls.adjustLocalVars(1)
	ls.body(&b, false, ls.linenumber)
	fs.storeVar(&v, &b)
	// debug information will only see the variable after this point!
	fs.getLocVar(fs.nactvar - 1).StartPc = fs.pc()
}

func (ls *lexState) localStat() {
	// stat -> LOCAL NAME {',' NAME} ['=' explist1]
	nvars := 0
	var nexps int
	var e expdesc
	for {
		ls.newLocalVar(ls.strCheckName(), nvars)
		nvars++
		if !ls.testNext(',') {
			break
		}
	}
	if ls.testNext('=') {
		nexps = ls.explist1(&e)
	} else {
		e.k = vVOID
		nexps = 0
	}
	ls.adjustAssign(nvars, nexps, &e)
	ls.adjustLocalVars(nvars)
}

func (ls *lexState) funcName(v *expdesc) bool {
	// funcname -> NAME {field} [':' NAME]
	needself := false
	ls.singleVar(v)
	for ls.t.tok == '.' {
		ls.field(v)
	}
	if ls.t.tok == ':' {
		needself = true
		ls.field(v)
	}
	return needself
}

func (ls *lexState) funcStat(line int) {
	// funcstat -> FUNCTION funcname body
	var v, b expdesc
	ls.luaXNext() // skip FUNCTION
	needself := ls.funcName(&v)
	ls.body(&b, needself, line)
	ls.fs.storeVar(&v, &b)
	ls.fs.fixLine(line) // definition 'happens' in the first line
}

func (ls *lexState) exprStat() {
	// stat -> func | assignment
	fs := ls.fs
	var v lhsAssign
	ls.primaryExp(&v.v)
	if v.v.k == vCALL { // stat -> func
		setC(fs.getcode(&v.v), 1) // call statement uses no results
	} else { // stat -> assignment
		v.prev = nil
		ls.assignment(&v, 1)
	}
}

func (ls *lexState) retStat() {
	// stat -> RETURN explist
	fs := ls.fs
	var e expdesc
	var first, nret int // registers with returned values
	ls.luaXNext()       // skip RETURN
	if blockFollow(ls.t.tok) || ls.t.tok == ';' {
		first, nret = 0, 0 // return no values
	} else {
		nret = ls.explist1(&e) // optional return values
		if hasMultRet(e.k) {
			fs.setMultRet(&e)
			if e.k == vCALL && nret == 1 { // tail call?
				setOp(fs.getcode(&e), lua.OP_TAILCALL)
			}
			first = fs.nactvar
			nret = luaMultRet // return all values
		} else {
			if nret == 1 { // only one single value?
				first = fs.exp2AnyReg(&e)
			} else {
				fs.exp2NextReg(&e) // values must go to the 'stack'
				first = fs.nactvar // return all 'active' values
			}
		}
	}
	fs.ret(first, nret)
}

func (ls *lexState) statement() bool {
	line := ls.linenumber // may be needed for error messages
	switch ls.t.tok {
	case tkIf: // stat -> ifstat
		ls.ifStat(line)
	case tkWhile: // stat -> whilestat
		ls.whileStat(line)
	case tkDo: // stat -> DO block END
		ls.luaXNext() // skip DO
		ls.block()
		ls.checkMatch(tkEnd, tkDo, line)
	case tkFor: // stat -> forstat
		ls.forStat(line)
	case tkRepeat: // stat -> repeatstat
		ls.repeatStat(line)
	case tkFunction:
		ls.funcStat(line) // stat -> funcstat
	case tkLocal: // stat -> localstat
		ls.luaXNext()                // skip LOCAL
		if ls.testNext(tkFunction) { // local function?
			ls.localFunc()
		} else {
			ls.localStat()
		}
	case tkReturn: // stat -> retstat
		ls.retStat()
		return true // must be last statement
	case tkBreak: // stat -> breakstat
		ls.luaXNext() // skip BREAK
		ls.breakStat()
		return true // must be last statement
	default:
		ls.exprStat()
	}
	return false
}

func (ls *lexState) chunk() {
	// chunk -> { stat [';'] }
	islast := false
	ls.enterLevel()
	for !islast && !blockFollow(ls.t.tok) {
		islast = ls.statement()
		ls.testNext(';')
		ls.fs.freereg = ls.fs.nactvar // free registers
	}
	ls.leaveLevel()
}
