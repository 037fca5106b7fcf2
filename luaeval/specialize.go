package luaeval

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// specialize returns a copy of p (and its nested functions) in which every
// read of a global that can never change — the libraries and builtins, all
// read-only — loads the value as a constant instead of looking it up through
// the read-only globals proxy (two hash lookups each). KEYS and ARGV are
// constants too: they are the sandbox's two tables, refilled for each run
// (fillArgs). A name the globals do not hold is left alone (so
// "nonexistent global variable" errors are unchanged).
//
// The copy belongs to one sandbox: it holds that sandbox's values.
func (sb *sandbox) specialize(p *lua.FunctionProto) *lua.FunctionProto {
	np := *p
	np.Code = append([]uint32(nil), p.Code...)
	np.Constants = append([]lua.LValue(nil), p.Constants...)
	added := map[string]int{}
	for i, in := range np.Code {
		if seam.OpCode(in) != lua.OP_GETGLOBAL {
			continue
		}
		name, ok := p.Constants[seam.OpBx(in)].(lua.LString)
		if !ok {
			continue
		}
		v := sb.gReal.RawGetString(string(name))
		if v == lua.LNil {
			continue
		}
		k, ok := added[string(name)]
		if !ok {
			k = len(np.Constants)
			if k >= 1<<18 {
				continue // LOADK cannot address it
			}
			np.Constants = append(np.Constants, v)
			added[string(name)] = k
		}
		np.Code[i] = uint32(lua.OP_LOADK)<<26 | uint32(seam.OpA(in))<<18 | uint32(k)
	}
	sb.inlineFields(&np)
	if len(p.FunctionPrototypes) > 0 {
		np.FunctionPrototypes = make([]*lua.FunctionProto, len(p.FunctionPrototypes))
		for i, c := range p.FunctionPrototypes {
			np.FunctionPrototypes[i] = sb.specialize(c)
		}
	}
	return &np
}

// globalName is the global a specialized LOADK constant stands for, for
// error messages ("attempt to call global 'string'").
func (sb *sandbox) globalName(v lua.LValue) (string, bool) {
	for k, gv, _ := seam.Next(sb.gReal, lua.LNil); k != lua.LNil; k, gv, _ = seam.Next(sb.gReal, k) {
		if gv == v {
			if s, ok := k.(lua.LString); ok {
				return string(s), true
			}
		}
	}
	return "", false
}

// inlineFields turns `LOADK r, <library>` followed by `GETTABLEKS a, r,
// "name"` into a load of the library's function itself (redis.call,
// string.format ...), when no jump can land between the two. Library tables
// are read-only, so the value cannot differ from what the lookup would find.
func (sb *sandbox) inlineFields(p *lua.FunctionProto) {
	targets := jumpTargets(p.Code)
	added := map[lua.LValue]int{}
	for i := 1; i < len(p.Code); i++ {
		in, prev := p.Code[i], p.Code[i-1]
		if seam.OpCode(in) != lua.OP_GETTABLEKS || seam.OpCode(prev) != lua.OP_LOADK || targets[i] {
			continue
		}
		if seam.OpB(in) != seam.OpA(prev) {
			continue
		}
		proxy, ok := p.Constants[seam.OpBx(prev)].(*lua.LTable)
		if !ok || !sb.isProtected(proxy) {
			continue
		}
		key, ok := rkConstant(p, seam.OpC(in))
		if !ok {
			continue
		}
		v := sb.realTable(proxy).RawGetString(key)
		if v.Type() != lua.LTFunction {
			continue
		}
		k, ok := added[v]
		if !ok {
			k = len(p.Constants)
			if k >= 1<<18 {
				continue
			}
			p.Constants = append(p.Constants, v)
			added[v] = k
		}
		p.Code[i] = uint32(lua.OP_LOADK)<<26 | uint32(seam.OpA(in))<<18 | uint32(k)
	}
}

// jumpTargets marks every instruction some jump or skip can land on.
func jumpTargets(code []uint32) []bool {
	t := make([]bool, len(code)+2)
	const maxSbx = (1<<18 - 1) >> 1
	for j, in := range code {
		switch seam.OpCode(in) {
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
			if to := j + 1 + seam.OpBx(in) - maxSbx; to >= 0 && to < len(t) {
				t[to] = true
			}
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP, lua.OP_LOADBOOL:
			t[j+2] = true
		}
	}
	return t[:len(code)]
}
