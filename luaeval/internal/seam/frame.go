package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// Instruction fields, as gopher-lua (and Lua 5.1) encode them.

// OpCode is the instruction's opcode.
func OpCode(i uint32) int { return int(i >> 26) }

// OpA is the instruction's A field.
func OpA(i uint32) int { return int(i>>18) & 0xff }

// OpB is the instruction's B field.
func OpB(i uint32) int { return int(i & 0x1ff) }

// OpC is the instruction's C field.
func OpC(i uint32) int { return int(i>>9) & 0x1ff }

// OpBx is the instruction's Bx field.
func OpBx(i uint32) int { return int(i & 0x3ffff) }

// RKBit marks a B or C operand that names a constant (RK(x)).
const RKBit = 1 << 8

// FramePC returns the index of the instruction the function described by
// dbg (from L.GetStack) is running. It reports false when the hooks are
// off or dbg describes no Lua frame.
func FramePC(dbg *lua.Debug) (int, bool) {
	if !Enabled() {
		return 0, false
	}
	f := debugOf(dbg).frame
	if f == nil || f.Fn == nil || f.Fn.IsG {
		return 0, false
	}
	return f.Pc - 1, true
}

// frame is the running Lua function's frame inside a VM hook.
type frame struct {
	reg *registry
	cf  *callFrame
}

func frameOf(L *lua.LState) frame {
	s := stateOf(L)
	return frame{reg: s.reg, cf: s.currentFrame}
}

// get is register r of the running function (R(r)).
func (f frame) get(r int) lua.LValue {
	return f.reg.array[f.cf.LocalBase+r]
}

// set writes register r as the VM's own handlers do (registry.Set).
// Registers up to NumUsedRegisters are allocated when the frame is
// entered, so r is always within the array.
func (f frame) set(r int, v lua.LValue) {
	i := f.cf.LocalBase + r
	f.reg.array[i] = v
	if i >= f.reg.top {
		f.reg.top = i + 1
	}
}

// rk is RK(x): a constant when x has RKBit, else register x.
func (f frame) rk(x int) lua.LValue {
	if x&RKBit != 0 {
		return f.cf.Fn.Proto.Constants[x&^RKBit]
	}
	return f.get(x)
}
