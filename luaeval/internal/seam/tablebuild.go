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
	t, tkeys, m, ud := newHashPart(size)
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

// newHashPart allocates a table (Metatable nil, as L.CreateTable makes
// it) with a hash part of size nodes (a power of two) that its caller
// fills: the nodes, the bookkeeping's userdata after them, the
// bookkeeping with its chain links. Up to 8 nodes come in one allocation
// with the table.
func newHashPart(size int) (t *lua.LTable, keys []lua.LValue, m *tabMeta, ud *lua.LUserData) {
	switch {
	case size <= 2:
		h := &hashTable2{}
		t, keys, m, ud = &h.t, h.n.keys[:size+1:size+1], &h.n.m, &h.n.ud
		m.next = h.n.next[:size:size]
	case size <= 4:
		h := &hashTable4{}
		t, keys, m, ud = &h.t, h.n.keys[:size+1:size+1], &h.n.m, &h.n.ud
		m.next = h.n.next[:size:size]
	case size <= 8:
		h := &hashTable8{}
		t, keys, m, ud = &h.t, h.n.keys[:size+1:size+1], &h.n.m, &h.n.ud
		m.next = h.n.next[:size:size]
	default:
		t = &lua.LTable{}
		sn := &nodesMeta{}
		keys, m, ud = make([]lua.LValue, size+1), &sn.m, &sn.ud
		m.next = make([]int32, size)
	}
	t.Metatable = lua.LNil
	return t, keys, m, ud
}

// newCombined is NewTable's table (already charged) when it fits one
// allocation with its parts: an array part of 5 to 16 slots and no hash
// part, or a hash part of up to 8 nodes and no array part; else nil.
func newCombined(narr, nrec int) *lua.LTable {
	switch {
	case nrec == 0 && narr > len(smallTable{}.a) && narr <= 16:
		var t *lua.LTable
		var a []lua.LValue
		if narr <= 8 {
			at := &arrayTable8{}
			t, a = &at.t, at.a[:narr:narr]
		} else {
			at := &arrayTable16{}
			t, a = &at.t, at.a[:narr:narr]
		}
		t.Metatable = lua.LNil
		for i := range a {
			a[i] = lua.LNil
		}
		tableOf(t).array = a
		return t
	case narr == 0 && nrec > 0 && nrec <= 8:
		// setNodeVector's free nodes.
		size := 1 << ceilLog2(nrec)
		t, keys, m, ud := newHashPart(size)
		freeNodes(keys, m, ud, size)
		tb := tableOf(t)
		tb.keys = keys
		tb.k2i = make(map[lua.LValue]int)
		return t
	}
	return nil
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
// part, NewTable(L, ArraySize(len(vals)), 0) filled in order.
func ArrayTable(L *lua.LState, vals []lua.LValue) *lua.LTable {
	t := NewTable(L, ArraySize(len(vals)), 0)
	a := tableOf(t).array
	copy(a, vals) // the rest of the slots are nil already
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
