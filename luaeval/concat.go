package luaeval

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// The `..` operator builds its whole result in one strings.Join inside
// gopher-lua's VM (OP_CONCAT), so a doubling loop reaches gigabytes between
// two samples of the memory watchdog. No Lua-visible hook runs before that
// allocation and a bytecode rewrite cannot add a check without shifting
// every pc (jumps, line info, varinfo), so the check wraps the VM's own
// handler for OP_CONCAT: it refuses, with string.rep's "not enough memory",
// a concatenation whose operands add up to more than MaxStringBytes, and
// then runs the original handler, so results, errors and lines are
// gopher-lua's. The handler table and its function type are unexported;
// they are reached by name in the pinned v1.1.2 (vm.go: `var jumpTable
// [opCodeMax + 1]instFunc`, `type instFunc func(*LState, uint32,
// *callFrame) int`; a *callFrame is passed here as the unsafe.Pointer it is
// at the machine level). TestConcatLimit fails if the hook is not in place.

//go:linkname luaJumpTable github.com/yuin/gopher-lua.jumpTable
var luaJumpTable [lua.OP_NOP + 1]func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int

func init() {
	orig := luaJumpTable[lua.OP_CONCAT]
	luaJumpTable[lua.OP_CONCAT] = func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
		limit := concatLimit(L)
		if limit < 0 {
			return orig(L, inst, baseframe)
		}
		// R(B) .. ... .. R(C); the running Lua frame is L's current one,
		// so L.Get(r+1) is register r.
		n, plain := 0, true
		for r := opB(inst); r <= opC(inst); r++ {
			switch v := L.Get(r + 1).(type) {
			case lua.LString:
				n += len(v)
			case lua.LNumber:
				n += 32 // more than any number's text (fmt.Sprint)
			default:
				plain = false // a __concat metamethod decides (or the error)
			}
		}
		if n > limit {
			L.Error(lua.LString(errNoMemory), 0)
		}
		ret := orig(L, inst, baseframe)
		// With metamethods the operands do not bound the result (one may
		// return a string built elsewhere); keep every `..` result within
		// the limit so the next one is bounded again.
		if !plain {
			if s, ok := L.Get(opA(inst) + 1).(lua.LString); ok && len(s) > limit {
				L.Error(lua.LString(errNoMemory), 0)
			}
		}
		return ret
	}
}

// concatLimit is MaxStringBytes of the engine whose script L runs (its
// coroutines share the run's context), or -1 for a state that is not an
// engine's.
func concatLimit(L *lua.LState) int {
	if ctx, ok := L.Context().(runCtx); ok {
		return ctx.c.e.cfg.MaxStringBytes
	}
	return -1
}
