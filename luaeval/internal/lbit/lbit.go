// Package lbit is LuaBitOp 1.0 (deps/lua/src/lua_bit.c) as Redis 7.0
// ships it: 32-bit operations on Lua numbers, results as signed 32-bit
// numbers, with LuaBitOp's argument conversion (any number, rounded,
// modulo 2^32) and its errors.
package lbit

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Funcs returns the bit table's functions.
func Funcs() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return bret(L, barg(L, 1)) },
		"bnot":    func(L *lua.LState) int { return bret(L, ^barg(L, 1)) },
		"band":    bitFold(func(a, b uint32) uint32 { return a & b }),
		"bor":     bitFold(func(a, b uint32) uint32 { return a | b }),
		"bxor":    bitFold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  bitShift(func(b, n uint32) uint32 { return b << n }),
		"rshift":  bitShift(func(b, n uint32) uint32 { return b >> n }),
		"arshift": bitShift(func(b, n uint32) uint32 { return uint32(int32(b) >> n) }),
		"rol":     bitShift(func(b, n uint32) uint32 { return b<<n | b>>(32-n) }),
		"ror":     bitShift(func(b, n uint32) uint32 { return b>>n | b<<(32-n) }),
		"bswap": func(L *lua.LState) int {
			b := barg(L, 1)
			return bret(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
		},
		"tohex": bitTohex,
	}
}

// barg is lua_bit.c:barg: the number plus 2^52+2^51, whose low 32 bits are
// the rounded value modulo 2^32. A non-number is an error only when that
// gives 0, as in LuaBitOp.
func barg(L *lua.LState, n int) uint32 {
	var f float64
	isNum := false
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		f, isNum = float64(v), true
	case lua.LString:
		f, isNum = lauxlib.Str2Number(string(v))
	}
	b := uint32(math.Float64bits(f + 6755399441055744.0))
	if b == 0 && !isNum {
		lauxlib.TypeError(L, n, "number")
	}
	return b
}

func bret(L *lua.LState, b uint32) int {
	L.Push(lauxlib.Number(L, int32(b)))
	return 1
}

func bitFold(op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := barg(L, 1)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, barg(L, i))
		}
		return bret(L, b)
	}
}

func bitShift(op func(b, n uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := barg(L, 1)
		n := barg(L, 2) & 31
		return bret(L, op(b, n))
	}
}

func bitTohex(L *lua.LState) int {
	b := barg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(barg(L, 2))
	}
	digits := "0123456789abcdef"
	if n == math.MinInt32 {
		// -n would stay negative; patched Redis (CVE-2024-31449) does
		// the same.
		n++
	}
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 {
		n = 8
	}
	buf := make([]byte, n)
	for i := int(n) - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
