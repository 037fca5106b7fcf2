package seam

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Boxed numbers.
//
// A number held in an lua.LValue is a float64 behind a pointer: every
// arithmetic result the hooks write into a register was an 8-byte heap
// allocation (runtime.convT64), and in a loop those allocations and the
// collections they cause were the largest cost of a script that computes.
// Lua's integers in scripts are mostly small (loop indices, counters,
// lengths, sums), so Number gives each integer in [smallMin, smallMax) an
// interface pointing into one static array instead, as gopher-lua's own
// allocator does for 0..127, and NumberIn boxes the others in the state's
// own allocator, 32 floats to an allocation, as gopher-lua's handlers do.
// An LValue's data word is only ever read (the value is immutable), so
// sharing the float is invisible.

const (
	smallMin = -1024
	smallMax = 8192
)

// smallNums holds the floats smallMin .. smallMax-1 (74 KB).
var smallNums = func() (a [smallMax - smallMin]float64) {
	for i := range a {
		a[i] = float64(i + smallMin)
	}
	return a
}()

// numberTab is the interface table word of an LNumber held as an LValue.
var numberTab = func() unsafe.Pointer {
	var v lua.LValue = lua.LNumber(1.5)
	return (*ifaceWords)(unsafe.Pointer(&v)).tab
}()

// Number is lua.LNumber(x) as an lua.LValue, without an allocation when x
// is a small integer (negative zero excluded: its sign must survive).
func Number(x float64) lua.LValue {
	if x >= smallMin && x < smallMax {
		if i := int(x); float64(i) == x && (i != 0 || !signbit(x)) {
			var v lua.LValue
			*(*ifaceWords)(unsafe.Pointer(&v)) = ifaceWords{numberTab, unsafe.Pointer(&smallNums[i-smallMin])}
			return v
		}
	}
	return lua.LNumber(x)
}

func signbit(x float64) bool { return *(*int64)(unsafe.Pointer(&x)) < 0 }

// NumberIn is Number for a result of L's script: a number outside the
// static ones is boxed in L's allocator, as gopher-lua's handlers box
// theirs.
func NumberIn(L *lua.LState, x float64) lua.LValue {
	if v, ok := smallNumber(x); ok {
		return v
	}
	return boxIn(L, x)
}

// smallNumber is x as an LValue when it is one of the static numbers
// (small enough to be inlined into the VM loop, which calls boxIn
// itself for the others).
func smallNumber(x float64) (lua.LValue, bool) {
	i := int(x)
	if float64(i) != x || uint(i-smallMin) >= smallMax-smallMin || i == 0 && signbit(x) {
		return nil, false
	}
	var v lua.LValue
	*(*ifaceWords)(unsafe.Pointer(&v)) = ifaceWords{numberTab, unsafe.Pointer(&smallNums[i-smallMin])}
	return v, true
}

// boxIn boxes x in L's allocator.
func boxIn(L *lua.LState, x float64) lua.LValue {
	al := stateOf(L).alloc
	if al == nil || al.size <= 0 {
		return lua.LNumber(x)
	}
	if len(al.fptrs) == cap(al.fptrs) {
		al.fptrs = make([]float64, 0, al.size)
		al.fheader = (*reflect.SliceHeader)(unsafe.Pointer(&al.fptrs))
	}
	al.fptrs = append(al.fptrs, x)
	var v lua.LValue
	*(*ifaceWords)(unsafe.Pointer(&v)) = ifaceWords{numberTab, unsafe.Pointer(&al.fptrs[len(al.fptrs)-1])}
	return v
}

// smallIndex is the index in smallNums of the number v holds when it is
// one of the static ones: only Number and NumberIn point into smallNums,
// always with an LNumber's type word.
func smallIndex(v lua.LValue) (int, bool) {
	off := uintptr((*ifaceWords)(unsafe.Pointer(&v)).data) - uintptr(unsafe.Pointer(&smallNums[0]))
	return int(off / 8), off < uintptr(len(smallNums))*8
}

// smallArith is x op y for the arithmetic instructions other than +
// and - (which the VM loop does itself) when Lua's float result is an
// integer that the integers give exactly: * of small integers is exact
// and -0 only when it is 0 with a negative operand (left to the floats);
// the remainder is lvm.c's a - floor(a/b)*b, which for integers is the
// remainder with the divisor's sign (+0 when zero). Division, and a zero
// divisor, are left to the floats.
func smallArith(op, x, y int) (int, bool) {
	switch op {
	case lua.OP_MUL:
		if (x == 0 || y == 0) && (x < 0 || y < 0) {
			return 0, false
		}
		return x * y, true
	case lua.OP_MOD:
		if y == 0 {
			return 0, false
		}
		r := x % y
		if r != 0 && (r^y) < 0 {
			r += y
		}
		return r, true
	}
	return 0, false
}

// smallAt is the static number r, which must be in [smallMin, smallMax).
func smallAt(r int) lua.LValue {
	var v lua.LValue
	*(*ifaceWords)(unsafe.Pointer(&v)) = ifaceWords{numberTab, unsafe.Pointer(&smallNums[r-smallMin])}
	return v
}
