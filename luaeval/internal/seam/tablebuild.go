package seam

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// HashTable is the table NewTable(L, 0, len(keys)) and then RawSet of
// keys[i], vals[i] in o.Order(keys)'s order make (no value nil), which is
// the layout of lua_newtable and one lua_rawset per pair: the decoders'
// objects. It is made at once from the layout the order leaves
// (TableOrder.Layout), without finding each key's node again, and a small
// one is one allocation with its nodes; the same bytes are charged as
// NewTable charges. ok is false when the keys are not distinct strings:
// the caller then inserts them one by one.
func HashTable(L *lua.LState, o *lauxlib.TableOrder, keys, vals []lua.LValue) (t *lua.LTable, ok bool) {
	order, ok := o.Order(keys)
	if !ok {
		return nil, false
	}
	node, next, lastfree := o.Layout()
	n := len(keys)
	size := len(node)
	if n == 0 || size != 1<<ceilLog2(n) || len(next) != size {
		t = NewTable(L, 0, n)
		for _, i := range order {
			RawSet(L, t, keys[i], vals[i])
		}
		return t, true
	}
	lauxlib.Alloc(L, nodeBytes*n)
	var tkeys []lua.LValue
	var m *tabMeta
	var ud *lua.LUserData
	switch {
	case size <= 2:
		h := &hashTable2{}
		t, tkeys, m, ud = &h.t, h.n.keys[:size+1:size+1], &h.n.m, &h.n.ud
		m.next = h.n.next[:size:size]
	case size <= 4:
		h := &hashTable4{}
		t, tkeys, m, ud = &h.t, h.n.keys[:size+1:size+1], &h.n.m, &h.n.ud
		m.next = h.n.next[:size:size]
	case size <= 8:
		h := &hashTable8{}
		t, tkeys, m, ud = &h.t, h.n.keys[:size+1:size+1], &h.n.m, &h.n.ud
		m.next = h.n.next[:size:size]
	default:
		t = &lua.LTable{}
		sn := &nodesMeta{}
		tkeys, m, ud = make([]lua.LValue, size+1), &sn.m, &sn.ud
		m.next = make([]int32, size)
	}
	t.Metatable = lua.LNil // as L.CreateTable makes it
	for i, k := range node {
		if k >= 0 {
			tkeys[i] = keys[k]
		} else {
			tkeys[i] = lua.LNil
		}
	}
	copy(m.next, next)
	m.lastfree = lastfree
	ud.Value, ud.Metatable = m, lua.LNil
	tkeys[size] = ud
	tb := tableOf(t)
	tb.keys = tkeys
	tb.k2i = make(map[lua.LValue]int) // see setNodeVector
	sd := make(map[string]lua.LValue, n)
	for i, k := range keys {
		sd[string(k.(lua.LString))] = vals[i]
	}
	tb.strdict = sd
	return t, true
}

// hashTable2, hashTable4 and hashTable8 are a table and its hash part of
// up to 2, 4 and 8 nodes in one allocation.
type hashTable2 struct {
	t lua.LTable
	n nodes2
}

type hashTable4 struct {
	t lua.LTable
	n nodes4
}

type hashTable8 struct {
	t lua.LTable
	n nodes8
}

// Pairs walks t's keys and values in Next's order (for k, v := range
// Pairs(t)), without finding each key again: the encoders' walk. t must
// not change during the walk (they only read it).
func Pairs(t *lua.LTable) func(yield func(k, v lua.LValue) bool) {
	return func(yield func(k, v lua.LValue) bool) {
		tb := tableOf(t)
		if !inLuaLayout(tb) {
			for k, v, _ := foreignNext(tb, lua.LNil); k != lua.LNil; k, v, _ = foreignNext(tb, k) {
				if !yield(k, v) {
					return
				}
			}
			return
		}
		for i, v := range tb.array {
			if v != lua.LNil && !yield(Number(float64(i+1)), v) {
				return
			}
		}
		if m := metaOf(tb); m != nil {
			for _, k := range tb.keys[:len(m.next)] {
				if k == lua.LNil {
					continue
				}
				if v := tb.value(k); v != lua.LNil && !yield(k, v) {
					return
				}
			}
		}
	}
}

// ArrayTable is the table lua_newtable and lua_rawseti of 1, 2, 3 ... in
// order make of vals (none of them nil, at most lauxlib.MaxAtOnce): an
// array part of the power of two at or above their count and no hash
// part (NewTable(L, ArraySize(len(vals)), 0) filled in order). Up to 16
// slots come in one allocation with the table.
func ArrayTable(L *lua.LState, vals []lua.LValue) *lua.LTable {
	size := ArraySize(len(vals))
	var t *lua.LTable
	var a []lua.LValue
	switch {
	case size <= len(smallTable{}.a):
		t = NewTable(L, size, 0)
		a = tableOf(t).array
	case size <= 8:
		lauxlib.Alloc(L, size*slotBytes) // as NewTable charges
		at := &arrayTable8{}
		t, a = &at.t, at.a[:size:size]
	case size <= 16:
		lauxlib.Alloc(L, size*slotBytes)
		at := &arrayTable16{}
		t, a = &at.t, at.a[:size:size]
	default:
		t = NewTable(L, size, 0)
		a = tableOf(t).array
	}
	if size > len(smallTable{}.a) && size <= 16 {
		t.Metatable = lua.LNil // as L.CreateTable makes it
		tableOf(t).array = a
	}
	copy(a, vals)
	for i := len(vals); i < size; i++ {
		a[i] = lua.LNil
	}
	return t
}

// arrayTable8 and arrayTable16 are a table with room for an array part of
// up to 8 and 16 slots.
type arrayTable8 struct {
	t lua.LTable
	a [8]lua.LValue
}

type arrayTable16 struct {
	t lua.LTable
	a [16]lua.LValue
}
