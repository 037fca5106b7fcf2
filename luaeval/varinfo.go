package luaeval

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// Lua 5.1 names the variable in type errors ("attempt to index local 'x'
// (a nil value)", ldebug.c:luaG_typeerror with getobjname); gopher-lua only
// says "attempt to index a non-table object(nil)". varInfoMessage rebuilds
// Lua's message from the failing instruction, the way getobjname does.
//
// The one thing gopher-lua does not export is the frame's program counter
// (seam.FramePC). With the seam's hooks off the message keeps its shorter
// form.

// objName is getobjname: what register reg holds at instruction pc. The
// code is Lua 5.1's own (luac), so the register's last writer is found as
// ldebug.c's symbexec finds it.
func (sb *sandbox) objName(fn *lua.LFunction, pc, reg, depth int) (kind, name string) {
	if depth > 8 {
		return "", ""
	}
	p := fn.Proto
	if n, ok := localName(p, reg+1, pc); ok {
		return "local", n
	}
	in, ok := symbexec(p, pc, reg)
	if !ok {
		return "", ""
	}
	switch seam.OpCode(in) {
	case lua.OP_GETGLOBAL:
		if bx := seam.OpBx(in); bx < len(p.Constants) {
			if s, ok := p.Constants[bx].(lua.LString); ok {
				return "global", string(s)
			}
		}
	case lua.OP_LOADK:
		// A global read turned into a constant by specialize.
		if bx := seam.OpBx(in); bx < len(p.Constants) {
			if _, isTable := p.Constants[bx].(*lua.LTable); isTable || p.Constants[bx].Type() == lua.LTFunction {
				if n, ok := sb.globalName(p.Constants[bx]); ok {
					return "global", n
				}
			}
		}
	case lua.OP_MOVE:
		if a, b := seam.OpA(in), seam.OpB(in); b < a {
			return sb.objName(fn, pc, b, depth+1)
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		// ldebug.c:kname: a key that is not a constant string is "?".
		if s, ok := rkConstant(p, seam.OpC(in)); ok {
			return "field", s
		}
		return "field", "?"
	case lua.OP_GETUPVAL:
		if b := seam.OpB(in); b < len(p.DbgUpvalues) {
			return "upvalue", p.DbgUpvalues[b]
		}
	case lua.OP_SELF:
		if s, ok := rkConstant(p, seam.OpC(in)); ok {
			return "method", s
		}
		return "method", "?"
	}
	return "", ""
}

// symbexec is ldebug.c's symbexec, as getobjname uses it: the last
// instruction before lastpc that changed register reg, following forward
// jumps that stay before lastpc (and the function's final return when
// none did).
func symbexec(p *lua.FunctionProto, lastpc, reg int) (uint32, bool) {
	code := p.Code
	if lastpc > len(code) || len(code) == 0 {
		return 0, false
	}
	last := len(code) - 1
	for pc := 0; pc < lastpc; pc++ {
		in := code[pc]
		op := seam.OpCode(in)
		a, b, c := seam.OpA(in), seam.OpB(in), seam.OpC(in)
		if setsA(op) && a == reg {
			last = pc
		}
		switch op {
		case lua.OP_LOADNIL:
			if a <= reg && reg <= b {
				last = pc // sets registers a to b
			}
		case lua.OP_SELF:
			if reg == a+1 {
				last = pc
			}
		case lua.OP_TFORLOOP:
			if reg >= a+2 {
				last = pc // affects every register above its base
			}
		case lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_JMP:
			sbx := seam.OpBx(in) - maxSbx
			if dest := pc + 1 + sbx; pc < dest && dest <= lastpc {
				pc += sbx // a forward jump that does not skip lastpc
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			if reg >= a {
				last = pc // affects every register above its base
			}
		case lua.OP_SETLIST:
			if c == 0 {
				pc++ // the block number's word
			}
		case lua.OP_CLOSURE:
			if bx := seam.OpBx(in); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues) // its pseudo-instructions
			}
		}
	}
	return code[last], true
}

const maxSbx = (1<<18 - 1) >> 1

// setsA reports whether op writes register A (lopcodes.c's testAMode).
func setsA(op int) bool {
	switch op {
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_JMP,
		lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_RETURN, lua.OP_TFORLOOP, lua.OP_SETLIST,
		lua.OP_CLOSE, lua.OP_NOP:
		return false
	}
	return true
}

// localName is lfunc.c:luaF_getlocalname: the name of the n-th local
// active at pc (luac records Lua's [startpc, endpc) ranges, in order of
// declaration).
func localName(p *lua.FunctionProto, n, pc int) (string, bool) {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc { // is variable active?
			n--
			if n == 0 {
				return l.Name, true
			}
		}
	}
	return "", false
}

func rkConstant(p *lua.FunctionProto, rk int) (string, bool) {
	if rk&seam.RKBit == 0 {
		return "", false
	}
	if i := rk &^ seam.RKBit; i < len(p.Constants) {
		if s, ok := p.Constants[i].(lua.LString); ok {
			return string(s), true
		}
	}
	return "", false
}

// operand is an instruction operand: a register (with its value) or a
// constant.
type operand struct {
	reg   int // -1 for a constant
	value lua.LValue
}

func rkOperand(L *lua.LState, dbg *lua.Debug, p *lua.FunctionProto, rk int) operand {
	if rk&seam.RKBit != 0 {
		if i := rk &^ seam.RKBit; i < len(p.Constants) {
			return operand{reg: -1, value: p.Constants[i]}
		}
		return operand{reg: -1, value: lua.LNil}
	}
	return operand{reg: rk, value: regValue(L, dbg, rk)}
}

func regValue(L *lua.LState, dbg *lua.Debug, reg int) lua.LValue {
	_, v := L.GetLocal(dbg, reg+1)
	if v == nil {
		return lua.LNil
	}
	return v
}

func isNumberLike(v lua.LValue) bool {
	switch x := v.(type) {
	case lua.LNumber:
		return true
	case lua.LString:
		_, ok := lauxlib.Str2Number(string(x))
		return ok
	}
	return false
}

func isStringLike(v lua.LValue) bool {
	switch v.(type) {
	case lua.LNumber, lua.LString:
		return true
	}
	return false
}

// varInfoMessage rewrites a gopher-lua type error raised in the Lua frame
// dbg (at level) into Lua 5.1's words; ok is false when it cannot tell.
func (sb *sandbox) varInfoMessage(L *lua.LState, dbg *lua.Debug, fn *lua.LFunction, msg string, level int) (string, bool) {
	pc, ok := seam.FramePC(dbg)
	if !ok || fn == nil || fn.IsG || pc < 0 || pc >= len(fn.Proto.Code) {
		return "", false
	}
	p := fn.Proto
	in := p.Code[pc]
	op := seam.OpCode(in)
	var verb string
	var o operand
	switch {
	case strings.Contains(msg, "attempt to call a non-function object") && (op == lua.OP_CALL || op == lua.OP_TAILCALL):
		verb = "call"
		o = operand{reg: seam.OpA(in), value: regValue(L, dbg, seam.OpA(in))}
	case strings.Contains(msg, "attempt to index a non-table object"):
		verb = "index"
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			o = operand{reg: seam.OpB(in), value: regValue(L, dbg, seam.OpB(in))}
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			o = operand{reg: seam.OpA(in), value: regValue(L, dbg, seam.OpA(in))}
		default:
			return "", false
		}
	case strings.Contains(msg, "__unm undefined") || strings.Contains(msg, "cannot perform") && !strings.Contains(msg, "concat"):
		verb = "perform arithmetic on"
		switch op {
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			p1, p2 := rkOperand(L, dbg, p, seam.OpB(in)), rkOperand(L, dbg, p, seam.OpC(in))
			o = p2
			if !isNumberLike(p1.value) {
				o = p1
			}
		case lua.OP_UNM:
			o = operand{reg: seam.OpB(in), value: regValue(L, dbg, seam.OpB(in))}
		default:
			return "", false
		}
	case strings.Contains(msg, "__len undefined"):
		verb = "get length of"
		if op != lua.OP_LEN {
			return "", false
		}
		o = operand{reg: seam.OpB(in), value: regValue(L, dbg, seam.OpB(in))}
	case strings.Contains(msg, "cannot perform concat"):
		verb = "concatenate"
		if op != lua.OP_CONCAT {
			return "", false
		}
		b, c := seam.OpB(in), seam.OpC(in)
		o = operand{reg: -2}
		if v := regValue(L, dbg, c-1); !isStringLike(v) {
			o = operand{reg: c - 1, value: v}
		} else if v := regValue(L, dbg, c); !isStringLike(v) {
			o = operand{reg: c, value: v}
		} else {
			for r := c - 2; r >= b; r-- {
				if v := regValue(L, dbg, r); !isStringLike(v) {
					o = operand{reg: r, value: v}
					break
				}
			}
		}
		if o.reg == -2 {
			return "", false
		}
	default:
		return "", false
	}
	t := o.value.Type().String()
	prefix := lauxlib.Where(L, level)
	if dbg.CurrentLine > 0 {
		prefix = dbg.Source + ":" + itoa(dbg.CurrentLine) + ": "
	}
	if o.reg >= 0 {
		if kind, name := sb.objName(fn, pc, o.reg, 0); kind != "" {
			return prefix + "attempt to " + verb + " " + kind + " '" + name + "' (a " + t + " value)", true
		}
	}
	return prefix + "attempt to " + verb + " a " + t + " value", true
}
