package seam

import (
	"sync/atomic"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// The VM's instruction handlers, reached by name in v1.1.2 (vm.go: `var
// jumpTable [opCodeMax + 1]instFunc`, `type instFunc func(*LState, uint32,
// *callFrame) int`). A *callFrame is passed through as the unsafe.Pointer
// it is at the machine level. A hook replaces one entry and calls the
// original for states that are not running a minilock script (an
// application may use gopher-lua for its own purposes in the same process).
//
//go:linkname jumpTable github.com/yuin/gopher-lua.jumpTable
var jumpTable [lua.OP_NOP + 1]instFunc

type instFunc = func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int

// ours reports whether L runs a minilock script: its context is the
// engine's run context, which carries the script's budget.
func ours(L *lua.LState) bool {
	// Every hooked instruction asks, so the answer for the last context
	// type found to be a budget is remembered by its interface table
	// word (a type assertion to an interface costs a table lookup).
	tab := uintptr((*ifaceWords)(unsafe.Pointer(&stateOf(L).ctx)).tab)
	if tab != 0 && tab == budgetTab.Load() {
		return true
	}
	_, ok := L.Context().(lauxlib.Budget)
	if ok {
		budgetTab.Store(tab)
	}
	return ok
}

// budgetTab is the interface table word of the last state context found
// to be a lauxlib.Budget (engines on several goroutines share it).
var budgetTab atomic.Uintptr

// hook replaces the handler of op with h; h gets the original to fall back
// on.
func hook(op int, h func(orig instFunc) instFunc) {
	jumpTable[op] = h(jumpTable[op])
}

func installConcat() {
	hook(lua.OP_CONCAT, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			concat(L, inst)
			return 0
		}
	})
}

// concat is OP_CONCAT, R(A) := R(B) .. ... .. R(C), as lvm.c:luaV_concat
// does it: from the right, as many strings and numbers at a time as there
// are (numbers as "%.14g", converted in place in their registers as Lua
// does), a __concat metamethod for any other pair. The result's size is
// charged to the script before it is built.
func concat(L *lua.LState, inst uint32) {
	f := frameOf(L)
	b := OpB(inst)
	total, last := OpC(inst)-b+1, OpC(inst)
	for total > 1 {
		n := 2
		if f.strOrNumber(last-1) && f.strOrNumber(last) {
			// The run of strings and numbers ending at last, built in
			// one allocation, the numbers formatted straight into it:
			// the operands are the concatenation's own temporaries, so
			// converting them in place first, as lvm.c does, could not
			// be seen.
			for n < total && f.strOrNumber(last-n) {
				n++
			}
			if v, ok := shortConcat(L, f, last-n+1, last); ok {
				f.set(last-n+1, v)
				total -= n - 1
				last -= n - 1
				continue
			}
			var tmp [32]byte
			size := 0
			for i := last - n + 1; i <= last; i++ {
				switch v := f.get(i).(type) {
				case lua.LString:
					size += len(v)
				case lua.LNumber:
					size += len(lauxlib.AppendNumber(tmp[:0], float64(v)))
				}
			}
			lauxlib.Alloc(L, size)
			v, buf := newString(size)
			buf = buf[:0]
			for i := last - n + 1; i <= last; i++ {
				switch x := f.get(i).(type) {
				case lua.LString:
					buf = append(buf, x...)
				case lua.LNumber:
					buf = lauxlib.AppendNumber(buf, float64(x))
				}
			}
			f.set(last-n+1, v)
		} else {
			// Not both strings or numbers: lvm.c calls the
			// metamethod with the operands as they are (its tostring
			// of the right one fails, and the left one is only
			// tested: 5 .. t reaches __concat with the number 5).
			lhs, rhs := f.get(last-1), f.get(last)
			tm := L.GetMetaField(lhs, "__concat")
			if tm == lua.LNil {
				tm = L.GetMetaField(rhs, "__concat")
			}
			if tm == lua.LNil {
				// gopher-lua's own wording, which the engine translates
				// into Lua 5.1's with the variable's name.
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(tm)
			L.Push(lhs)
			L.Push(rhs)
			metaCall(L, 2, 1)
			r := L.Get(-1)
			L.Pop(1)
			f = frameOf(L) // the call may have grown the value stack
			f.set(last-1, r)
		}
		total -= n - 1
		last -= n - 1
	}
	f.set(OpA(inst), f.get(b))
}

// ConcatSource is implemented by a script state's context that keeps a
// cache of short strings for concatenation's results.
type ConcatSource interface{ ConcatStrings() *lauxlib.Interner }

// shortConcat is the concatenation of registers first..last (strings and
// numbers) when the result is short enough to be cached: the same bytes
// give the same string value again, as Lua interns every string, without
// an allocation ('k' .. i building the keys a loop wrote before and reads
// again, KEYS[1] .. ':wait' in every run). The script is charged the
// result's size as for a string it makes. false: no cache, or a longer
// (or empty) result, which the caller builds.
func shortConcat(L *lua.LState, f frame, first, last int) (lua.LValue, bool) {
	if !fastTables {
		return nil, false
	}
	src, ok := L.Context().(ConcatSource)
	if !ok {
		return nil, false
	}
	in := src.ConcatStrings()
	if in == nil {
		return nil, false
	}
	// Room for one number (at most 21 bytes as "%.14g") past the
	// longest cached string, so appending never leaves the array.
	var sb [lauxlib.MaxInterned + 24]byte
	buf := sb[:0]
	for i := first; i <= last; i++ {
		switch x := f.get(i).(type) {
		case lua.LString:
			if len(buf)+len(x) > lauxlib.MaxInterned {
				return nil, false
			}
			buf = append(buf, x...)
		case lua.LNumber:
			buf = lauxlib.AppendNumber(buf, float64(x))
			if len(buf) > lauxlib.MaxInterned {
				return nil, false
			}
		}
	}
	if len(buf) == 0 {
		return nil, false
	}
	lauxlib.Alloc(L, len(buf))
	slot, hit := lauxlib.Slot(in, buf)
	if hit {
		return *slot, true
	}
	v, b := newString(len(buf))
	copy(b, buf)
	if slot != nil {
		*slot = v
	}
	return v, true
}

// strOrNumber reports whether register r holds a string or a number.
func (f frame) strOrNumber(r int) bool {
	switch f.get(r).(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}
