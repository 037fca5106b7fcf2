package seam

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"
	"weak"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Numeric loop kernels.
//
// A numeric for loop whose body only moves numbers between locals, loads
// number constants, does arithmetic and compares numbers (and jumps) can
// neither fail, call anything nor see a value that is not a number once
// the registers it reads first hold numbers. pollLoop still pays for each
// of its instructions a decode, a dispatch, a type assertion per operand
// and a boxed float per result; such a loop runs here instead, as a
// kernel: the loop's instructions decoded once per proto into a compact
// array of operations over a []float64 of the registers and constants
// involved. On exit every register the kernel wrote is written back boxed
// (NumberIn) and the pc is where the interpreter would be, so the
// interpreter goes on as if it had run the loop itself: the last
// FORLOOP, the one that ends the loop, is left to it.
//
// A kernel also takes the few other operations such loops are made of in
// scripts: loading a constant that is not a number (a library function,
// a string), string.byte(s, i) of such a string, t[i] reads of numbers
// from a table's array part and t[i] = x writes, and the generic for over
// ipairs (entered at its TFORLOOP). Those work on the registers
// themselves and check, each time, what the interpreter's fast paths
// check; when a check fails the kernel stops before that instruction,
// with every register written back, and the interpreter runs it and the
// rest of the loop. A write that grows a table is fastSetTable's, called
// on the registers written back (it may raise the memory limit's error,
// from that instruction).
//
// The kernel counts Lua instructions as pollLoop does (a comparison and
// the jump after it are two) and polls the context at the same counts, so
// SCRIPT KILL, FUNCTION KILL, the memory watchdog and Config.WhileBusy see
// it as they see the interpreter; a kill writes the registers back and
// raises the interpreter's error at the instruction's pc.

// KernelsOff makes pollLoop run every loop in the interpreter, and
// KernelRuns counts the loops run as kernels while CountKernels is set:
// the kernels' tests compare both ways and check the kernels ran.
var (
	KernelsOff   atomic.Bool
	CountKernels atomic.Bool
	KernelRuns   atomic.Int64
)

// Kernel operations. A comparison (kEq, kLt, kLe) includes the JMP after
// it: the JMP keeps its own operation, for the jumps that land on it.
const (
	kMove = iota
	kAdd
	kSub
	kMul
	kDiv
	kMod
	kPow
	kUnm
	kEq
	kLt
	kLe
	kJmp
	kForLoop
	kExit    // leaves the loop for the instruction at the pc in t
	kLoadObj // LOADK of a constant that is not a number (t: its index), into the register itself
	kByte    // CALL of string.byte(R(A+1), R(A+2)) into R(A), one result (t: A)
	kGetTab  // GETTABLE of a number from a table's array part
	kSetTab  // SETTABLE of a number
	kIpairs  // TFORLOOP (and the JMP after it) over ipairs' iterator (t: A | C<<8)
	kMoveObj // MOVE of a register that may hold something else than a number
)

// kop is one instruction: a, b, c are slots (registers first, then
// constants), t an operation's index (a jump's target; where a
// comparison's JMP goes; for kForLoop the loop variable's slot); k is the
// comparison's A (the result that does not skip the JMP).
type kop struct {
	code    uint8
	a, b, c uint8
	k       bool
	t       int32
}

// maxSlots bounds the registers and constants of a kernel: the slots are a
// fixed array on the stack, indexed with &(maxSlots-1) so Go checks no
// bounds.
const maxSlots = 64

// kernel is a proto's loop starting at a FORPREP, analysed; ok is false
// for a loop that cannot run as a kernel (remembered as such).
type kernel struct {
	addr   uintptr                         // the proto's address, not a reference to it
	proto  weak.Pointer[lua.FunctionProto] // the proto itself
	pc     int                             // the FORPREP's index
	ok     bool
	start  int // the body's first instruction (FORPREP + 1)
	ops    []kop
	code   []uint64  // ops packed: code, a, b, c in bytes 0-3 (k in bit 31), t above
	regs   []uint8   // slot i < len(regs) is register regs[i]
	consts []float64 // slot len(regs)+j holds consts[j]
	live   uint64    // slots the loop may read before writing them
	a      int       // the FORPREP's A
	entry  int       // the FORLOOP's operation
	top    int       // the highest register involved
	// clob is, for each kByte operation, the slots of the registers above
	// the call's function, which the call leaves nil.
	clob  []uint64
	calls bool // the loop calls string.byte
	// aux is, for the kIpairs operation, the slots of R(A+3) and R(A+4).
	aux []uint16
	// short counts the runs of a generic for's kernel that ended before
	// a second iteration: past shortRuns the loop is left to the
	// interpreter, which a body the kernel cannot finish would otherwise
	// enter and leave at every iteration.
	short atomic.Int32
}

const shortRuns = 64

// kernels is a direct-mapped cache of analyses, bounded so that scripts a
// client loads and flushes cannot grow it; a collision only costs an
// analysis again. It holds no proto alive: an entry is known by a weak
// pointer to its proto, checked before it is used (a loop found not to
// be a kernel included: another proto at a collected one's address is
// analysed afresh, not left to the interpreter).
var kernels [1024]atomic.Pointer[kernel]

// kernelOf is the analysis of p's loop at pc; byteFn is the script's
// string.byte (nil for none), whose calls the loop may make (the
// engine's, one per sandbox like the specialized protos that load it).
func kernelOf(p *lua.FunctionProto, pc int, byteFn *lua.LFunction) *kernel {
	addr := uintptr(unsafe.Pointer(p))
	h := (addr>>4 ^ uintptr(pc)*0x9e3779b1) % uintptr(len(kernels))
	if k := kernels[h].Load(); k != nil && k.addr == addr && k.pc == pc && k.proto.Value() == p {
		return k
	}
	k := analyse(p, pc, byteFn)
	k.proto = weak.Make(p)
	kernels[h].Store(k)
	return k
}

// analyse decodes the loop of the FORPREP at p.Code[pc]. Besides numbers,
// a kernel moves a few values that are not: constants loaded into
// registers (a function, a string), tables indexed by numbers holding
// numbers, and calls of string.byte (byteFn) with two arguments and one
// result. Those values stay in their registers, read and written there;
// each operation on them checks at run time that they are what it
// computes with (a table, a string, the function, an index in range, a
// number found), and otherwise leaves the instruction to the interpreter
// (see run). No operation on numbers may read a register that may hold
// anything else (numericOnly).
func analyse(p *lua.FunctionProto, pc int, byteFn *lua.LFunction) *kernel {
	k := &kernel{addr: uintptr(unsafe.Pointer(p)), pc: pc}
	code := p.Code
	prep := code[pc]
	k.a = OpA(prep)
	var end int
	if OpCode(prep) == lua.OP_TFORLOOP {
		// A generic for: the body runs from the JMP's target up to the
		// TFORLOOP at pc, the kernel's last operation and its entry.
		if pc+1 >= len(code) || OpCode(code[pc+1]) != lua.OP_JMP {
			return k
		}
		k.start = pc + 2 + OpBx(code[pc+1]) - maxArgSbx
		end = pc
		if k.start < 0 || k.start > pc {
			return k
		}
	} else {
		k.start = pc + 1
		end = k.start + OpBx(prep) - maxArgSbx // the FORLOOP
		if end < k.start || end >= len(code) || OpCode(code[end]) != lua.OP_FORLOOP || OpA(code[end]) != k.a {
			return k
		}
	}
	var aux uint16
	var slot [256]int16 // register -> slot + 1
	var cslot [RKBit]int16
	var kconsts []int
	reg := func(r int) (uint8, bool) {
		if slot[r] == 0 {
			k.regs = append(k.regs, uint8(r))
			slot[r] = int16(len(k.regs))
		}
		return uint8(slot[r] - 1), true
	}
	// Constants get their slots after the registers: numbered here, moved
	// up once the registers are counted.
	konst := func(i int) (uint8, bool) {
		if i >= len(p.Constants) || i >= RKBit {
			return 0, false
		}
		if _, ok := p.Constants[i].(lua.LNumber); !ok {
			return 0, false
		}
		if cslot[i] == 0 {
			kconsts = append(kconsts, i)
			cslot[i] = int16(len(kconsts))
		}
		return uint8(cslot[i]-1) | 0x80, true
	}
	rk := func(x int) (uint8, bool) {
		if x&RKBit != 0 {
			return konst(x &^ RKBit)
		}
		return reg(x)
	}
	n := end - k.start + 1
	ops := make([]kop, n)
	target := func(i, sbx int) int32 { return int32(i + 1 + sbx) } // an op index, maybe outside
	for i := 0; i < n; i++ {
		inst := code[k.start+i]
		a, b, c := OpA(inst), OpB(inst), OpC(inst)
		var o kop
		var ok1, ok2, ok3 bool = true, true, true
		switch op := OpCode(inst); op {
		case lua.OP_MOVE:
			o.code = kMove
			o.a, ok1 = reg(a)
			o.b, ok2 = reg(b)
		case lua.OP_LOADK:
			if _, num := p.Constants[OpBx(inst)].(lua.LNumber); !num {
				o.code = kLoadObj
				o.a, ok1 = reg(a)
				o.t = int32(OpBx(inst))
				break
			}
			o.code = kMove
			o.a, ok1 = reg(a)
			o.b, ok2 = konst(OpBx(inst))
		case lua.OP_CALL:
			// string.byte(s, i) as one value: its function loaded by
			// the loop itself (a specialized script's constant).
			if b != 3 || c != 2 || a+3 >= 256 || byteFn == nil || !loadsConst(p, code[k.start:end], a, byteFn) {
				return k
			}
			o.code = kByte
			o.a, ok1 = reg(a)
			o.b, ok2 = reg(a + 1)
			o.c, ok3 = reg(a + 2)
			o.t = int32(a)
			k.top = max(k.top, a+3) // the call's result is pushed there
			k.calls = true
		case lua.OP_GETTABLE:
			o.code = kGetTab
			o.a, ok1 = reg(a)
			o.b, ok2 = reg(b)
			o.c, ok3 = rk(c)
		case lua.OP_SETTABLE:
			o.code = kSetTab
			o.a, ok1 = reg(a)
			o.b, ok2 = rk(b)
			o.c, ok3 = rk(c)
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			o.code = uint8(kAdd + op - lua.OP_ADD)
			o.a, ok1 = reg(a)
			o.b, ok2 = rk(b)
			o.c, ok3 = rk(c)
		case lua.OP_UNM:
			o.code = kUnm
			o.a, ok1 = reg(a)
			o.b, ok2 = reg(b)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			if i+1 >= n || OpCode(code[k.start+i+1]) != lua.OP_JMP {
				return k
			}
			o.code = uint8(kEq + op - lua.OP_EQ)
			o.k = a != 0
			o.b, ok2 = rk(b)
			o.c, ok3 = rk(c)
			o.t = target(i+1, OpBx(code[k.start+i+1])-maxArgSbx)
		case lua.OP_JMP:
			o.code = kJmp
			o.t = target(i, OpBx(inst)-maxArgSbx)
		case lua.OP_FORLOOP:
			if i != n-1 || a+3 >= 256 {
				return k
			}
			o.code = kForLoop
			o.a, ok1 = reg(a)
			o.b, ok2 = reg(a + 1)
			o.c, ok3 = reg(a + 2)
			var v uint8
			v, _ = reg(a + 3)
			o.t = int32(v)
			if target(i, OpBx(inst)-maxArgSbx) != 0 {
				return k
			}
		case lua.OP_TFORLOOP:
			// for _, v in ipairs(t): the iterator and the table are read
			// from their registers, the control variable is a number.
			if i != n-1 || i+k.start != pc || c < 1 || c > 2 || a+8 >= 256 {
				return k
			}
			o.code = kIpairs
			o.a, ok1 = reg(a)
			o.b, ok2 = reg(a + 1)
			o.c, ok3 = reg(a + 2)
			s3, _ := reg(a + 3)
			s4 := s3
			if c == 2 {
				s4, _ = reg(a + 4)
			}
			aux = uint16(s3) | uint16(s4)<<8
			o.t = int32(a | c<<8)
			k.top = max(k.top, a+7) // the iterator's call reaches R(A+7)
		default:
			return k
		}
		if !ok1 || !ok2 || !ok3 {
			return k
		}
		ops[i] = o
	}
	nr := len(k.regs)
	if nr+len(kconsts) > maxSlots {
		return k
	}
	fix := func(s uint8) uint8 {
		if s&0x80 != 0 {
			return uint8(nr) + s&0x7f
		}
		return s
	}
	for i := range ops {
		o := &ops[i]
		switch o.code {
		case kJmp, kForLoop, kExit:
		default:
			o.a, o.b, o.c = fix(o.a), fix(o.b), fix(o.c)
		}
	}
	// Jumps out of the loop go to exit operations after the loop's, so
	// that every target is an operation.
	exits := map[int32]int32{}
	for i := 0; i < n; i++ {
		switch t := ops[i].t; ops[i].code {
		case kJmp, kEq, kLt, kLe:
			if t < 0 || int(t) >= n {
				e, ok := exits[t]
				if !ok {
					e = int32(len(ops))
					exits[t] = e
					ops = append(ops, kop{code: kExit, t: t})
				}
				ops[i].t = e
			}
		}
	}
	for _, r := range k.regs {
		k.top = max(k.top, int(r))
	}
	k.clob = make([]uint64, len(ops))
	k.aux = make([]uint16, len(ops))
	for i, o := range ops {
		// The registers the call leaves nil: above R(A) for string.byte,
		// from R(A+3+C) for the iterator.
		from := -1
		switch o.code {
		case kByte:
			from = int(o.t) + 1
		case kIpairs:
			from = int(o.t&0xff) + 3 + int(o.t>>8)
			k.aux[i] = aux
		}
		for s, r := range k.regs {
			if from >= 0 && int(r) >= from {
				k.clob[i] |= 1 << s
			}
		}
	}
	for _, c := range kconsts {
		k.consts = append(k.consts, float64(p.Constants[c].(lua.LNumber)))
	}
	k.ops = ops
	k.entry = n - 1
	// A MOVE of a register that may hold something else (a string local
	// passed to string.byte) copies the register itself (kMoveObj): each
	// one found makes fewer registers live as numbers at entry, which may
	// find more.
	for {
		k.live = liveIn(ops, k.clob, k.aux, k.entry)
		var moved bool
		k.ok, moved = numericOnly(ops, k.clob, k.aux, k.entry, k.live, nr)
		if !moved {
			break
		}
	}
	for _, o := range ops {
		w := uint64(o.code) | uint64(o.a)<<8 | uint64(o.b)<<16 | uint64(o.c)<<24 | uint64(uint32(o.t))<<32
		if o.k {
			w |= 1 << 31
		}
		k.code = append(k.code, w)
	}
	return k
}

// loadsConst reports whether one of the loop's instructions loads
// constant v into register a.
func loadsConst(p *lua.FunctionProto, loop []uint32, a int, v lua.LValue) bool {
	for _, in := range loop {
		if OpCode(in) == lua.OP_LOADK && OpA(in) == a && p.Constants[OpBx(in)] == v {
			return true
		}
	}
	return false
}

// numericOnly reports whether every operation on numbers reads slots that
// hold numbers, whatever path the loop takes: the slots live at entry
// (which the kernel checks hold numbers) and those a number was written to
// last. The others may hold a constant loaded, a call's nil or, at entry,
// anything. A kMove that may read one of those becomes a kMoveObj (moved
// reports it, and the analysis is done again).
func numericOnly(ops []kop, clob []uint64, aux []uint16, entry int, live uint64, nr int) (ok, moved bool) {
	n := len(ops)
	bit := func(s uint8) uint64 { return 1 << (s & (maxSlots - 1)) }
	regs := ^uint64(0)
	if nr < 64 {
		regs = uint64(1)<<nr - 1
	}
	may := make([]uint64, n) // slots that may not hold a number before op i
	seen := make([]bool, n)
	work := []int{entry}
	may[entry], seen[entry] = ^live&regs, true
	flow := func(t int, s uint64) {
		if t < 0 || t >= n || seen[t] && may[t]|s == may[t] {
			return
		}
		may[t] |= s
		seen[t] = true
		work = append(work, t)
	}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		o, s := ops[i], may[i]
		var reads uint64
		switch o.code {
		case kMove:
			if s&bit(o.b) != 0 {
				ops[i].code = kMoveObj
				return false, true
			}
			flow(i+1, s&^bit(o.a))
		case kMoveObj:
			out := s &^ bit(o.a)
			if s&bit(o.b) != 0 {
				out |= bit(o.a)
			}
			flow(i+1, out)
		case kUnm:
			reads = bit(o.b)
			flow(i+1, s&^bit(o.a))
		case kAdd, kSub, kMul, kDiv, kMod, kPow:
			reads = bit(o.b) | bit(o.c)
			flow(i+1, s&^bit(o.a))
		case kEq, kLt, kLe:
			reads = bit(o.b) | bit(o.c)
			flow(i+2, s)
			flow(int(o.t), s)
		case kJmp:
			flow(int(o.t), s)
		case kForLoop:
			reads = bit(o.a) | bit(o.b) | bit(o.c)
			flow(0, s&^(bit(o.a)|bit(uint8(o.t))))
		case kLoadObj:
			flow(i+1, s|bit(o.a))
		case kByte:
			reads = bit(o.c)
			flow(i+1, (s|clob[i])&^bit(o.a))
		case kGetTab:
			reads = bit(o.c)
			flow(i+1, s&^bit(o.a))
		case kSetTab:
			reads = bit(o.b) | bit(o.c)
			flow(i+1, s)
		case kIpairs:
			reads = bit(o.c)
			flow(0, (s|clob[i])&^(bit(o.c)|bit(uint8(aux[i]))|bit(uint8(aux[i]>>8))))
		}
		if reads&s != 0 {
			return false, false
		}
	}
	return true, false
}

// liveIn is the set of slots some path from the loop's entry (its FORLOOP,
// operation entry) reads before writing: those must hold numbers when
// the kernel starts. Constants' slots may be in it; they always do.
func liveIn(ops []kop, clob []uint64, aux []uint16, entry int) uint64 {
	n := len(ops)
	live := make([]uint64, n)
	at := func(t int32) uint64 {
		if t >= 0 && int(t) < n {
			return live[t]
		}
		return 0 // out of the loop: the kernel has exited
	}
	bit := func(s uint8) uint64 { return 1 << (s & (maxSlots - 1)) }
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			o := ops[i]
			var in uint64
			switch o.code {
			case kUnm:
				in = bit(o.b) | at(int32(i+1))&^bit(o.a)
			case kMove, kMoveObj:
				// The source is needed as a number where the copy is: a
				// move of anything else becomes a kMoveObj (numericOnly).
				in = at(int32(i+1)) &^ bit(o.a)
				if at(int32(i+1))&bit(o.a) != 0 {
					in |= bit(o.b)
				}
			case kAdd, kSub, kMul, kDiv, kMod, kPow:
				in = bit(o.b) | bit(o.c) | at(int32(i+1))&^bit(o.a)
			case kEq, kLt, kLe:
				in = bit(o.b) | bit(o.c) | at(int32(i+2)) | at(o.t)
			case kJmp:
				in = at(o.t)
			case kExit:
				in = 0
			case kForLoop:
				// The loop goes on to the body with the index and its copy
				// written, or ends (the interpreter's FORLOOP).
				in = bit(o.a) | bit(o.b) | bit(o.c) | at(0)&^(bit(o.a)|bit(uint8(o.t)))
			case kLoadObj:
				in = at(int32(i+1)) &^ bit(o.a)
			case kByte:
				// The function and the string are read from their
				// registers, not as numbers.
				in = bit(o.c) | at(int32(i+1))&^(bit(o.a)|clob[i])
			case kGetTab:
				in = bit(o.c) | at(int32(i+1))&^bit(o.a)
			case kSetTab:
				in = bit(o.b) | bit(o.c) | at(int32(i+1))
			case kIpairs:
				// The body with the control variable and the results
				// written, or the end (the interpreter's).
				in = bit(o.c) | at(0)&^(bit(o.c)|bit(uint8(aux[i]))|bit(uint8(aux[i]>>8))|clob[i])
			}
			if in != live[i] {
				live[i], changed = in, true
			}
		}
	}
	return live[entry]
}

// kernelFor runs OP_FORPREP inst (just fetched, cf.Pc past it) and then
// its loop as a kernel, when the loop is one and its registers hold
// numbers; n is pollLoop's count of instructions to its next poll, which
// it returns updated. It reports false, having done nothing, when the
// FORPREP is left to its handler.
func kernelFor(L *lua.LState, s *lState, cf *callFrame, inst uint32, n int) (int, bool) {
	if KernelsOff.Load() {
		return n, false
	}
	a := s.reg.array
	lbase := cf.LocalBase
	ra := lbase + OpA(inst)
	if ra+3 >= len(a) {
		return n, false
	}
	init, ok1 := a[ra].(lua.LNumber)
	limit, ok2 := a[ra+1].(lua.LNumber)
	step, ok3 := a[ra+2].(lua.LNumber)
	if !ok1 || !ok2 || !ok3 {
		return n, false
	}
	// A loop that runs its body once at most is not worth a kernel's
	// entry and exit (nor the lookup).
	if x := init + step; !(step > 0 && x <= limit || step <= 0 && x >= limit) {
		return n, false
	}
	var byteFn *lua.LFunction
	if src, ok := L.Context().(ForInSource); ok {
		if fi := src.ForIn(); fi != nil {
			byteFn = fi.Byte
		}
	}
	k := kernelOf(cf.Fn.Proto, cf.Pc-1, byteFn)
	if !k.ok || lbase+k.top >= len(a) || k.calls && !callsInline(L, s) {
		return n, false
	}
	// OP_FORPREP, as gopher-lua's handler does it on numbers (the hook's
	// checks have nothing to do).
	frame{reg: s.reg, cf: cf}.set(k.a, NumberIn(L, float64(init-step)))
	cf.Pc = k.pc + 1 + OpBx(inst) - maxArgSbx
	var f [maxSlots]float64
	for i, r := range k.regs {
		if v, ok := a[lbase+int(r)].(lua.LNumber); ok {
			f[i] = float64(v)
		} else if k.live&(1<<i) != 0 {
			return n, true // the interpreter runs the loop from its FORLOOP
		}
	}
	copy(f[len(k.regs):], k.consts)
	if CountKernels.Load() {
		KernelRuns.Add(1)
	}
	return k.run(L, s, cf, &f, n, byteFn, nil), true
}

// kernelForIn runs OP_TFORLOOP inst (just fetched and counted, cf.Pc past
// it) and then its loop as a kernel, when the iterator is fi's ipairs one
// and the step it is about to take is one the kernel takes (ipairsStep:
// else the kernel would stop at once, and the interpreter's TFORLOOP come
// back here). It reports false, having done nothing, for the handler.
func kernelForIn(L *lua.LState, s *lState, gs *growStack, cf *callFrame, inst uint32, n int, fi *ForIn) (int, bool) {
	if KernelsOff.Load() || fi == nil {
		return n, false
	}
	a := s.reg.array
	lbase := cf.LocalBase
	ra := lbase + OpA(inst)
	c := OpC(inst)
	if c < 1 || c > 2 || ra+8 > len(a) || !isFunc(a[ra], fi.IpairsAux) {
		return n, false
	}
	// fastForIn's limits on the iterator's call.
	if gs.depth()+1 >= L.Options.CallStackSize || lauxlib.Of(L).CCalls(L).N+1 >= lauxlib.MaxCCalls {
		return n, false
	}
	t, ok := a[ra+1].(*lua.LTable)
	ctl, ok2 := a[ra+2].(lua.LNumber)
	if !ok || !ok2 || !noMeta(t) {
		return n, false
	}
	if j, ok := ipairsNext(t, float64(ctl)); !ok || j <= 0 {
		return n, false
	}
	k := kernelOf(cf.Fn.Proto, cf.Pc-1, fi.Byte)
	if !k.ok || lbase+k.top >= len(a) || k.short.Load() > shortRuns || k.calls && !callsInline(L, s) {
		return n, false
	}
	var f [maxSlots]float64
	for i, r := range k.regs {
		if v, ok := a[lbase+int(r)].(lua.LNumber); ok {
			f[i] = float64(v)
		} else if k.live&(1<<i) != 0 {
			return n, false
		}
	}
	copy(f[len(k.regs):], k.consts)
	if CountKernels.Load() {
		KernelRuns.Add(1)
	}
	// The TFORLOOP is the kernel's first operation: counted there. How
	// far the control variable went says whether the run was short.
	defer func() {
		if c, ok := s.reg.array[ra+2].(lua.LNumber); !ok || float64(c) < float64(ctl)+2 {
			k.short.Add(1)
		}
	}()
	return k.run(L, s, cf, &f, n+1, fi.Byte, fi.IpairsAux), true
}

// topBefore is the registry's top as the interpreter would have it: raised
// by the numbers not yet written back.
func (k *kernel) topBefore(reg *registry, lb int, dirty uint64) int {
	top := reg.top
	if lb+k.top < top {
		return top // no register of the kernel's is above it
	}
	for d := dirty; d != 0; d &= d - 1 {
		top = max(top, lb+int(k.regs[bits.TrailingZeros64(d)])+1)
	}
	return top
}

// clearNonNil sets the registers in r to nil (callGo's clearing), without
// writing those already nil: most are, from the previous iteration's call,
// and a read costs less than a write and its barrier.
func clearNonNil(r []lua.LValue) {
	for i := range r {
		if r[i] != nil {
			r[i] = nil
		}
	}
}

// ipairsNext is the index of the next value of ipairs over t from control
// value ctl, when it is a number in t's array part (fastForIn's reading of
// the control value); 0 when there is none.
func ipairsNext(t *lua.LTable, ctl float64) (int, bool) {
	j := int(ctl)
	if float64(j) != ctl || j < -(1<<52) || j >= 1<<52 {
		return 0, false
	}
	j++
	tb := tableOf(t)
	if uint(j-1) >= uint(len(tb.array)) {
		return 0, true
	}
	if _, ok := tb.array[j-1].(lua.LNumber); !ok {
		return 0, true
	}
	return j, true
}

// isFunc reports whether v is the function fn: a type assertion and a
// pointer compare, where comparing two interfaces calls runtime.ifaceeq
// (a tenth of table-array's profile).
func isFunc(v lua.LValue, fn *lua.LFunction) bool {
	f, ok := v.(*lua.LFunction)
	return ok && f == fn
}

// ipairsStep is kIpairs, the op in w: fastForIn's step of ipairs over a
// table without a metatable when the next value is a number in its array
// part: R(A+2) and R(A+3) the index, R(A+4) the value (C = 2), the
// registers from R(A+3+C) up to the top before the call (and those the
// call wrote) nil, the top R(A+3+C). It reports false, having done
// nothing, for any other step, the loop's end included (the interpreter's).
func (k *kernel) ipairsStep(reg *registry, lb int, f *[maxSlots]float64, w uint64, dirty uint64, clob uint64, aux uint16, ipairsAux *lua.LFunction) (uint64, bool) {
	const m = maxSlots - 1
	a, b, c := w>>8&m, w>>16&m, w>>24&m
	ra := lb + int(uint8(w>>32))
	nret := int(uint8(w >> 40))
	arr := reg.array
	if dirty&(1<<a|1<<b) != 0 || !isFunc(arr[ra], ipairsAux) {
		return dirty, false
	}
	t, ok := arr[ra+1].(*lua.LTable)
	if !ok || !noMeta(t) {
		return dirty, false
	}
	j, ok := ipairsNext(t, f[c])
	if !ok || j <= 0 {
		return dirty, false
	}
	v := tableOf(t).array[j-1].(lua.LNumber)
	clearNonNil(arr[ra+3+nret : max(k.topBefore(reg, lb, dirty), ra+8)])
	reg.top = ra + 3 + nret
	dirty &^= clob
	s3, s4 := aux&m, aux>>8&m
	f[c], f[s3] = float64(j), float64(j)
	dirty |= 1<<c | 1<<s3
	if nret == 2 {
		f[s4] = float64(v)
		dirty |= 1 << s4
	}
	return dirty, true
}

// callsInline reports whether a call of a Go function from the running
// frame would be fastCallGo's, pushing its frame and popping it with no
// other effect: the state is not a coroutine, and pushFrame would neither
// reserve (the limit, a new segment, the value stack's growth) nor need a
// segment the stack lacks. A kernel's string.byte is then that call's
// result, computed without the frame; the depth and the stack do not
// change while the kernel runs.
func callsInline(L *lua.LState, s *lState) bool {
	gs := growStackOf(L)
	if gs == nil || s.Parent != nil {
		return false
	}
	d := gs.depth()
	if d >= L.Options.CallStackSize || d+callSlack > len(gs.segments)*lua.FramesPerSegment || s.reg.growBy < len(s.reg.array) {
		return false
	}
	return gs.segSp < lua.FramesPerSegment || int(gs.segIdx)+1 < len(gs.segments) && gs.segments[gs.segIdx+1] != nil
}

// run runs the kernel from its FORLOOP until it leaves the loop, writes
// back the registers it wrote and sets cf.Pc to the next instruction the
// interpreter runs.
//
// The operations on values that are not numbers (kLoadObj, kByte, kGetTab,
// kSetTab) read them from their registers: a register whose slot holds a
// number not yet written back (dirty) holds nothing they can use. When an
// operation's checks fail, the kernel stops before its instruction, all
// registers written back, and the interpreter runs it and the rest of the
// loop (it counts the instruction again: it is uncounted here).
func (k *kernel) run(L *lua.LState, s *lState, cf *callFrame, f *[maxSlots]float64, n int, byteFn, ipairsAux *lua.LFunction) int {
	code := k.code
	const m = maxSlots - 1
	var dirty uint64
	reg := s.reg
	lb := cf.LocalBase
	consts := cf.Fn.Proto.Constants
	i := k.entry
	for {
		// An exit operation is no instruction: it is not counted.
		if n--; n == 0 && uint8(code[i]) != kExit {
			n = PollEvery
			if k.killed(L, s, cf, f, dirty, k.start+i) {
				return n
			}
		}
		w := code[i]
		a, b, c := w>>8&m, w>>16&m, w>>24&m
		var r bool
		switch uint8(w) {
		case kMove:
			f[a] = f[b]
		case kAdd:
			f[a] = add(f[b], f[c]) // the first operand's NaN, as in C
		case kSub:
			f[a] = f[b] - f[c]
		case kMul:
			f[a] = mul(f[b], f[c])
		case kDiv:
			f[a] = f[b] / f[c]
		case kMod:
			x, y := f[b], f[c]
			f[a] = x - math.Floor(x/y)*y // arith's, Lua's luai_nummod
		case kPow:
			f[a] = lauxlib.Pow(f[b], f[c])
		case kUnm:
			f[a] = -f[b]
		case kEq:
			r = f[b] == f[c]
			goto compared
		case kLt:
			r = f[b] < f[c]
			goto compared
		case kLe:
			r = f[b] <= f[c]
			goto compared
		case kJmp:
			i = int(int32(w >> 32))
			continue
		case kForLoop:
			x := f[a] + f[c]
			if step := f[c]; !(step > 0 && x <= f[b] || step <= 0 && x >= f[b]) {
				// The FORLOOP that ends the loop is the interpreter's.
				k.writeBack(L, s, cf, f, dirty)
				cf.Pc = k.start + i
				return n + 1
			}
			t := w >> 32 & m
			f[a], f[t] = x, x
			dirty |= 1<<a | 1<<t
			i = 0
			continue
		case kMoveObj:
			// A number not yet written back is moved as one; else the
			// register itself is copied (with its number, if it is one).
			if dirty&(1<<b) != 0 {
				f[a] = f[b]
				break
			}
			ra := lb + int(k.regs[a])
			reg.array[ra] = reg.array[lb+int(k.regs[b])]
			if ra >= reg.top {
				reg.top = ra + 1
			}
			f[a] = f[b]
			dirty &^= 1 << a
			i++
			continue
		case kLoadObj:
			// LOADK, into the register itself (setReg).
			ra := lb + int(k.regs[a])
			reg.array[ra] = consts[uint32(w>>32)]
			if ra >= reg.top {
				reg.top = ra + 1
			}
			dirty &^= 1 << a
			i++
			continue
		case kByte:
			var ok bool
			if dirty, ok = k.strByte(reg, lb, f, w, dirty, k.clob[i], byteFn); !ok {
				goto stop
			}
		case kIpairs:
			var ok bool
			if dirty, ok = k.ipairsStep(reg, lb, f, w, dirty, k.clob[i], k.aux[i], ipairsAux); !ok {
				goto stop
			}
			i = 0
			continue
		case kGetTab:
			// GETTABLE of an array slot holding a number: no __index.
			if dirty&(1<<b) != 0 {
				goto stop
			}
			t, ok := reg.array[lb+int(k.regs[b])].(*lua.LTable)
			x := f[c]
			j := int(x)
			if !ok || float64(j) != x {
				goto stop
			}
			tb := tableOf(t)
			if uint(j-1) >= uint(len(tb.array)) {
				goto stop
			}
			v, ok := tb.array[j-1].(lua.LNumber)
			if !ok {
				goto stop
			}
			f[a] = float64(v)
		case kSetTab:
			// fastSetTable's write of an array slot, the value boxed as
			// the interpreter boxes it; anything else is fastSetTable's
			// own, on the registers written back (it may grow the table
			// and raise the memory limit's error, at this instruction).
			if dirty&(1<<a) == 0 {
				if t, ok := reg.array[lb+int(k.regs[a])].(*lua.LTable); ok {
					x := f[b]
					j := int(x)
					tb := tableOf(t)
					if float64(j) == x && uint(j-1) < uint(len(tb.array)) && inLuaLayout(tb) &&
						(tb.array[j-1] != lua.LNil || noMeta(t)) {
						tb.array[j-1] = NumberIn(L, f[c])
						i++
						continue
					}
				}
			}
			k.writeBack(L, s, cf, f, dirty)
			dirty = 0
			cf.Pc = k.start + i + 1
			if !fastSetTable(s, cf, cf.Fn.Proto.Code[k.start+i]) {
				cf.Pc = k.start + i
				return n + 1
			}
			i++
			continue
		default: // kExit
			n++
			k.writeBack(L, s, cf, f, dirty)
			cf.Pc = k.start + int(int32(w>>32))
			return n
		}
		dirty |= 1 << a
		i++
		continue
	compared:
		if r != (w>>31&1 != 0) {
			i += 2 // the JMP skipped
			continue
		}
		// The JMP, fetched and counted as pollLoop does.
		if n--; n == 0 {
			n = PollEvery
			if k.killed(L, s, cf, f, dirty, k.start+i+1) {
				return n
			}
		}
		i = int(int32(w >> 32))
		continue
	stop:
		k.writeBack(L, s, cf, f, dirty)
		cf.Pc = k.start + i
		return n + 1
	}
}

// strByte is kByte, the op in w: string.byte(R(A+1), R(A+2)) into R(A)
// as fastCallGo and strlib's strByte compute it when R(A) is the function,
// R(A+1) a string and R(A+2) a position within it: the byte, the call's
// frame pushed and popped, and the registers above R(A) left nil as
// callGo leaves them (those up to the top before the call, and the one
// the result was pushed to). It reports false, having done nothing, for
// anything else (no byte, an argument of another type), which the
// interpreter's call then does.
func (k *kernel) strByte(reg *registry, lb int, f *[maxSlots]float64, w uint64, dirty uint64, clob uint64, byteFn *lua.LFunction) (uint64, bool) {
	const m = maxSlots - 1
	a, b, c := w>>8&m, w>>16&m, w>>24&m
	ra := lb + int(uint8(w>>32))
	arr := reg.array
	if dirty&(1<<a|1<<b) != 0 || !isFunc(arr[ra], byteFn) {
		return dirty, false
	}
	str, ok := arr[ra+1].(lua.LString)
	x := f[c]
	j := int(x)
	if !ok || float64(j) != x {
		return dirty, false
	}
	if j < 0 {
		j += len(str) + 1 // posrelat
	}
	if uint(j-1) >= uint(len(str)) {
		return dirty, false
	}
	top := k.topBefore(reg, lb, dirty)
	if top < ra+3 {
		return dirty, false // an argument past the top: the call sees nil
	}
	clearNonNil(arr[ra+1 : max(top, ra+4)])
	reg.top = ra + 1
	dirty &^= clob
	f[a] = float64(str[j-1])
	return dirty, true
}

// killed is pollLoop's poll at the instruction at pc: when the context is
// done, the registers are written back and its error raised from that
// instruction, as the interpreter would.
func (k *kernel) killed(L *lua.LState, s *lState, cf *callFrame, f *[maxSlots]float64, dirty uint64, pc int) bool {
	ctx := L.Context()
	if ctx == nil {
		return false
	}
	cf.Pc = pc + 1
	select {
	case <-ctx.Done():
		k.writeBack(L, s, cf, f, dirty)
		L.RaiseError("%s", ctx.Err().Error())
		return true
	default:
		return false
	}
}

// writeBack boxes the slots in dirty into their registers, as
// frame.set writes them.
func (k *kernel) writeBack(L *lua.LState, s *lState, cf *callFrame, f *[maxSlots]float64, dirty uint64) {
	fr := frame{reg: s.reg, cf: cf}
	for i, r := range k.regs {
		if dirty&(1<<i) != 0 {
			fr.set(int(r), NumberIn(L, f[i]))
		}
	}
}
