package seam

import (
	"math"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// arithEvents names each arithmetic instruction's metamethod and, as
// gopher-lua words its error, its operation.
var arithEvents = map[int][2]string{
	lua.OP_ADD: {"__add", "add"}, lua.OP_SUB: {"__sub", "sub"}, lua.OP_MUL: {"__mul", "mul"},
	lua.OP_DIV: {"__div", "div"}, lua.OP_MOD: {"__mod", "mod"}, lua.OP_POW: {"__pow", "pow"},
}

func installArith() {
	for op, ev := range arithEvents {
		hook(op, func(orig instFunc) instFunc {
			return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
				if !ours(L) {
					return orig(L, inst, baseframe)
				}
				f := frameOf(L)
				lhs, rhs := f.rk(OpB(inst)), f.rk(OpC(inst))
				x, ok1 := toNumber(lhs)
				y, ok2 := toNumber(rhs)
				if ok1 && ok2 {
					f.set(OpA(inst), NumberIn(L, arith(op, x, y)))
					return 0
				}
				if L.GetMetaField(lhs, ev[0]) == lua.LNil && L.GetMetaField(rhs, ev[0]) == lua.LNil {
					// gopher-lua's wording, which the engine turns into
					// Lua 5.1's, naming the operand that is not a number.
					L.RaiseError("cannot perform %s operation between %s and %s", ev[1], lhs.Type().String(), rhs.Type().String())
				}
				if metaFunc(L, lhs, ev[0]) || metaFunc(L, rhs, ev[0]) {
					return callOrig(L, orig, inst, baseframe)
				}
				return orig(L, inst, baseframe)
			}
		})
	}
	hook(lua.OP_UNM, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			f := frameOf(L)
			v := f.get(OpB(inst))
			if x, ok := toNumber(v); ok {
				f.set(OpA(inst), NumberIn(L, -x))
				return 0
			}
			if metaFunc(L, v, "__unm") {
				return callOrig(L, orig, inst, baseframe)
			}
			return orig(L, inst, baseframe)
		}
	})
}

// toNumber is lvm.c's tonumber: a number, or a string luaO_str2d reads
// (overflowing ones such as "1e500" included, as inf).
func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return lauxlib.Str2Number(string(x))
	}
	return 0, false
}

// arith is lvm.c's Arith on two numbers, with luaconf.h's operations: the
// remainder is a - floor(a/b)*b (not fmod: 5.5 % -2, 1e308 % 3 and NaNs
// come out as Lua's), the power C's pow.
func arith(op int, a, b float64) float64 {
	if op != lua.OP_MOD && op != lua.OP_POW {
		// A NaN operand is the result, the left one first, as the x86
		// instruction C's a+b compiles to gives it (its sign shows:
		// "nan" or "-nan"); Go may compile a*b with its operands
		// swapped, and does in some builds (-race).
		if a != a {
			return a
		}
		if b != b {
			return b
		}
	}
	switch op {
	case lua.OP_ADD:
		return a + b
	case lua.OP_SUB:
		return a - b
	case lua.OP_MUL:
		return a * b
	case lua.OP_DIV:
		return a / b
	case lua.OP_MOD:
		return a - math.Floor(a/b)*b
	default:
		return lauxlib.Pow(a, b)
	}
}
