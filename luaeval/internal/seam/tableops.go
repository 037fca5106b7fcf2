package seam

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// The VM's table instructions, replaced so that every table a script makes
// and writes has Lua 5.1's layout (table.go), and every integer key is read
// where that layout keeps it:
//
//   - OP_NEWTABLE: lvm.c's luaH_new(luaO_fb2int(B), luaO_fb2int(C)) (the
//     compiler encodes the sizes as Lua's does; gopher-lua took them as
//     counts).
//   - OP_SETLIST: the array part is sized once for the whole list
//     (luaH_resizearray), then filled.
//   - OP_GETTABLE, OP_SETTABLE, OP_SETTABLEKS (and OP_GETTABLEKS and
//     OP_SELF, ccalls.go): lvm.c's luaV_gettable and luaV_settable over
//     table.go's Get and RawSet (luaH_set gives a new key its node before
//     __newindex is consulted, as in Lua), MAXTAGLOOP (100) hops at most.
//   - OP_LEN: luaH_getn for a table; Lua 5.1 does not consult __len for
//     tables (gopher-lua does).
//
// OP_GETGLOBAL and OP_SETGLOBAL read and write string keys of the
// globals' proxy, which gopher-lua's own code finds where table.go keeps
// them; no script can give that chain another metamethod.
func installTables() {
	hook(lua.OP_NEWTABLE, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			t := NewTable(L, fb2int(OpB(inst)), fb2int(OpC(inst)))
			frameOf(L).set(OpA(inst), t)
			return 0
		}
	})
	hook(lua.OP_SETLIST, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			setList(L, inst)
			return 0
		}
	})
	hook(lua.OP_GETTABLE, indexHook)
	setHook := func(op int) {
		hook(op, func(orig instFunc) instFunc {
			return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
				if !ours(L) {
					return orig(L, inst, baseframe)
				}
				f := frameOf(L)
				t, ok := f.get(OpA(inst)).(*lua.LTable)
				if !ok {
					return orig(L, inst, baseframe)
				}
				setTable(L, t, f.rk(OpB(inst)), f.rk(OpC(inst)))
				return 0
			}
		})
	}
	setHook(lua.OP_SETTABLE)
	setHook(lua.OP_SETTABLEKS)
	hook(lua.OP_LEN, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			f := frameOf(L)
			switch x := f.get(OpB(inst)).(type) {
			case *lua.LTable:
				f.set(OpA(inst), Number(float64(Len(x))))
			case lua.LString:
				f.set(OpA(inst), Number(float64(len(x))))
			default:
				return orig(L, inst, baseframe)
			}
			return 0
		}
	})
}

func noMeta(t *lua.LTable) bool {
	_, none := t.Metatable.(*lua.LNilType)
	return none || t.Metatable == nil
}

// fb2int is lobject.c:luaO_fb2int.
func fb2int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return (x&7 + 8) << (e - 1)
}

// lfieldsPerFlush is lopcodes.h's LFIELDS_PER_FLUSH.
const lfieldsPerFlush = 50

// setList is lvm.c's OP_SETLIST.
func setList(L *lua.LState, inst uint32) {
	f := frameOf(L)
	a, n, c := OpA(inst), OpB(inst), OpC(inst)
	if n == 0 {
		n = f.reg.top - (f.cf.LocalBase + a) - 1
	}
	if c == 0 {
		c = int(f.cf.Fn.Proto.Code[f.cf.Pc])
		f.cf.Pc++
	}
	t, ok := f.get(a).(*lua.LTable)
	if !ok || n < 0 {
		L.RaiseError("SETLIST on a non-table")
	}
	last := (c-1)*lfieldsPerFlush + n
	tb := tableOf(t)
	if last > len(tb.array) {
		normalize(L, tb)
		nsize := 0
		if m := metaOf(tb); m != nil {
			nsize = len(m.next)
		}
		resize(L, tb, last, nsize)
	}
	for ; n > 0; n-- {
		RawSetInt(L, t, last, f.get(a+n))
		last--
	}
}

// maxTagLoop is lvm.c's MAXTAGLOOP: how many __index or __newindex tables
// one access may pass through.
const maxTagLoop = 100

// getTable is lvm.c's luaV_gettable for a table whose raw value is nil:
// the __index chain.
func getTable(L *lua.LState, obj, key lua.LValue) lua.LValue {
	cur := obj
	for range maxTagLoop {
		t, isTable := cur.(*lua.LTable)
		if isTable {
			if v := Get(t, key); v != lua.LNil {
				return v
			}
		}
		tm := L.GetMetaField(cur, "__index")
		if tm == lua.LNil {
			if !isTable {
				L.RaiseError("attempt to index a non-table object(%v) with key '%s'", cur.Type().String(), key.String())
			}
			return lua.LNil
		}
		if tm.Type() == lua.LTFunction {
			L.Push(tm)
			L.Push(cur)
			L.Push(key)
			metaCall(L, 2, 1)
			v := L.Get(-1)
			L.Pop(1)
			return v
		}
		cur = tm
	}
	L.RaiseError("loop in gettable")
	return lua.LNil
}

// setTable is lvm.c's luaV_settable.
func setTable(L *lua.LState, t *lua.LTable, key, val lua.LValue) {
	var cur lua.LValue = t
	for range maxTagLoop {
		if tb, ok := cur.(*lua.LTable); ok {
			switch k := key.(type) {
			case *lua.LNilType:
				L.RaiseError("table index is nil")
			case lua.LNumber:
				if k != k {
					L.RaiseError("table index is NaN")
				}
			}
			if noMeta(tb) || Get(tb, key) != lua.LNil {
				RawSet(L, tb, key, val)
				return
			}
			tm := L.GetMetaField(tb, "__newindex")
			if tm == lua.LNil {
				RawSet(L, tb, key, val)
				return
			}
			// luaH_set has given the key its node already.
			RawSet(L, tb, key, lua.LNil)
			if tm.Type() == lua.LTFunction {
				callNewIndex(L, tm, tb, key, val)
				return
			}
			cur = tm
			continue
		}
		tm := L.GetMetaField(cur, "__newindex")
		if tm == lua.LNil {
			L.RaiseError("attempt to index a non-table object(%v) with key '%s'", cur.Type().String(), key.String())
		}
		if tm.Type() == lua.LTFunction {
			callNewIndex(L, tm, cur, key, val)
			return
		}
		cur = tm
	}
	L.RaiseError("loop in settable")
}

func callNewIndex(L *lua.LState, tm, obj, key, val lua.LValue) {
	L.Push(tm)
	L.Push(obj)
	L.Push(key)
	L.Push(val)
	metaCall(L, 3, 0)
}

// GetTable is lua_gettable for Go code: obj[key] with __index, reading
// integer keys where table.go keeps them (gopher-lua's LState.GetTable
// misses those in the hash part).
func GetTable(L *lua.LState, obj, key lua.LValue) lua.LValue {
	if t, ok := obj.(*lua.LTable); ok {
		if v := Get(t, key); v != lua.LNil || noMeta(t) {
			return v
		}
	}
	return getTable(L, obj, key)
}

// indexHook runs R(A) := R(B)[RK(C)] through index (Lua 5.1's gettable:
// MAXTAGLOOP, __index functions counted as C calls): OP_GETTABLE and, for
// t.name, OP_GETTABLEKS.
func indexHook(orig instFunc) instFunc {
	return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
		if !ours(L) {
			return orig(L, inst, baseframe)
		}
		f := frameOf(L)
		v := index(L, f.get(OpB(inst)), f.rk(OpC(inst)))
		frameOf(L).set(OpA(inst), v)
		return 0
	}
}

// fastGetTable is OP_GETTABLE and OP_GETTABLEKS (the index hook) when
// R(B) is a table holding RK(C), or one without a metatable: no __index
// to consult.
func fastGetTable(s *lState, cf *callFrame, inst uint32) bool {
	t, ok := s.reg.array[cf.LocalBase+OpB(inst)].(*lua.LTable)
	if !ok {
		return false
	}
	var k lua.LValue
	if x := OpC(inst); x&RKBit != 0 {
		k = cf.Fn.Proto.Constants[x&^RKBit]
	} else {
		k = s.reg.array[cf.LocalBase+x]
	}
	v := Get(t, k)
	if v == lua.LNil && !noMeta(t) {
		return false
	}
	frame{reg: s.reg, cf: cf}.set(OpA(inst), v)
	return true
}

// fastSetTable is OP_SETTABLE and OP_SETTABLEKS (setTable) when no
// metamethod can be involved: the key already has a value in R(A) (Lua
// consults __newindex only for a key whose value is nil), or R(A) has no
// metatable; then it is RawSet, as setTable does it. A nil or NaN key, and
// a write that may meet __newindex, go to the handler.
func fastSetTable(s *lState, cf *callFrame, inst uint32) bool {
	t, ok := s.reg.array[cf.LocalBase+OpA(inst)].(*lua.LTable)
	if !ok {
		return false
	}
	f := frame{reg: s.reg, cf: cf}
	tb := tableOf(t)
	// kv, not k, is passed on: k as an LValue would be boxed again.
	kv := f.rk(OpB(inst))
	switch k := kv.(type) {
	case lua.LNumber:
		if i := int(k); lua.LNumber(i) == k && uint(i-1) < uint(len(tb.array)) && inLuaLayout(tb) {
			if tb.array[i-1] == lua.LNil && !noMeta(t) {
				return false
			}
			tb.array[i-1] = f.rk(OpC(inst))
			return true
		}
		if k != k || !noMeta(t) || !fastTables {
			return false
		}
		RawSet((*lua.LState)(unsafe.Pointer(s)), t, kv, f.rk(OpC(inst)))
		return true
	case lua.LString:
		if len(k) <= shortKey && fastTables {
			if m := metaOf(tb); m != nil && noMeta(t) {
				setShortString(s, tb, m, kv, f.rk(OpC(inst)))
				return true
			}
		}
		if _, ok := tb.strdict[string(k)]; ok {
			tb.store(kv, f.rk(OpC(inst)))
			return true
		}
		if !noMeta(t) || !fastTables {
			return false
		}
		setNew((*lua.LState)(unsafe.Pointer(s)), tb, kv, f.rk(OpC(inst)))
		return true
	}
	return false
}

// shortKey is the longest string key setShortString looks for along its
// chain: Lua's hash reads every byte, the map's hash is faster past it.
const shortKey = 32

// setShortString is t[k] = v for a string key k into a table in Lua's
// layout (m) without a metatable: k is looked for along the chain from its
// main position, as luaH_set does, rather than in strdict too (every key
// with a value has a node, so a key without one is new), and a new key is
// given its node from the position hashed once.
func setShortString(s *lState, tb *lTable, m *tabMeta, k, v lua.LValue) {
	mp := mainPosition(k, len(m.next))
	for i := mp; i >= 0; i = int(m.next[i]) {
		if tb.keys[i] == k {
			tb.store(k, v)
			return
		}
	}
	L := (*lua.LState)(unsafe.Pointer(s))
	if !newKeyAt(L, tb, m, k, mp, false) {
		for !placeKey(L, tb, k) {
		}
	}
	tb.store(k, v)
}

// fastLen is OP_LEN (the hook's work) on a table or a string.
func fastLen(s *lState, cf *callFrame, inst uint32) bool {
	if !fastTables {
		return false
	}
	var n int
	switch x := s.reg.array[cf.LocalBase+OpB(inst)].(type) {
	case *lua.LTable:
		n = Len(x)
	case lua.LString:
		n = len(x)
	default:
		return false
	}
	frame{reg: s.reg, cf: cf}.set(OpA(inst), Number(float64(n)))
	return true
}

// fastTables turns off what this file and ltablib do on their own (new
// keys written without the handler, # without the hook, table.sort's
// direct calls), the node counts that spare a rehash its value lookups
// (table.go's allLive) and the cache of short concatenation results
// (concat.go), so that tests can compare those paths with the slow ones
// (SetFastTables).
var fastTables = true

// SetFastTables turns the fast table paths on or off (tests only: not
// safe while a script runs). It returns the previous setting.
func SetFastTables(on bool) bool {
	old := fastTables
	fastTables = on
	return old
}
