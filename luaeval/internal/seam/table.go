package seam

import (
	"math"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Tables, as Lua 5.1's ltable.c keeps them, inside gopher-lua's LTable.
//
// gopher-lua's own table grows its array to any integer key below 2^26
// (t[6e7] = 1 allocates a gigabyte), has no border search (`#` walks
// trailing nils) and iterates its hash part in insertion order. Lua 5.1
// has an array part sized only when the table is rehashed (the largest
// power of two more than half full), and a hash part of 2^k nodes placed
// by the keys' hashes, with collisions chained and moved as ltable.c's
// newkey does; `#` (luaH_getn) and next (luaH_next) read that layout, so a
// border with holes and the iteration order are those of Redis's Lua only
// if the layout is the same. This file keeps that layout in the LTable's
// own fields:
//
//   - array: the array part; len(array) is Lua's sizearray (nil slots are
//     LNil).
//   - keys: the hash part's nodes in node order (LNil for a free node),
//     followed by one *LUserData carrying the nodes' chains and lastfree
//     (tabMeta). nil when the hash part is Lua's dummy node.
//   - k2i: an empty map. A key's node is found as ltable.c finds it, along
//     the chain from its main position (nodeOf): a map from every key to
//     its node cost a map per rehash and an insertion per key, the most of
//     building a table key by key. gopher-lua's setters need a map there
//     (they write the keys they append, see foreignNext).
//   - strdict (string keys) and dict (the others): the values of the keys
//     in the hash part; a key whose value is nil has no entry (its node
//     stays until the next rehash, as in Lua).
//
// gopher-lua's own RawGetString and RawGetH read this layout correctly;
// RawGet and RawGetInt do not see integer keys in the hash part, and
// LTable.Next loops forever on one when the array part is empty (and on
// any key of a table in Lua's layout, which k2i does not index), so reads
// of integer keys go through Get and GetInt, and iteration through Next. Every write into a table goes through RawSet, RawSetInt and
// RawSetString (the VM's through the hooked instructions, see tableops.go).
// A table written by gopher-lua's setters (a library's Go code) has
// gopher-lua's layout (keys in insertion order, no tabMeta); reads work on
// both, and the first write here rebuilds it into Lua's (normalize).

// maxBits is ltable.c's MAXBITS: the array part and the hash part have at
// most 2^maxBits slots.
const maxBits = 26

// Bytes charged to the script per array slot and per hash node before a
// table grows: what the Go heap holds for them, measured (1,048,576
// number keys: 161 bytes each with their boxed keys; the array: 15).
const (
	slotBytes = 16
	nodeBytes = 160
)

// tabMeta is the hash part's bookkeeping, kept behind the last node.
type tabMeta struct {
	next     []int32 // chain link of each node, -1 for none
	lastfree int     // ltable.c's lastfree: nodes below it may be free
	lastNext int     // the node of the key Next returned last (a hint)
	// used counts the nodes holding a key. Every key with a value in
	// dict or strdict has a node, so when used is their count no node
	// holds a dead key (one whose value was set to nil), and a rehash or
	// a collision need not look values up to tell.
	used int
}

// allLive reports whether every key in t's nodes (m) has a value.
func allLive(t *lTable, m *tabMeta) bool {
	return fastTables && m.used == len(t.strdict)+len(t.dict)
}

// metaOf returns t's bookkeeping when t has a hash part in Lua's layout.
func metaOf(t *lTable) *tabMeta {
	n := len(t.keys)
	if n == 0 {
		return nil
	}
	ud, ok := t.keys[n-1].(*lua.LUserData)
	if !ok {
		return nil
	}
	m, ok := ud.Value.(*tabMeta)
	if !ok || len(m.next) != n-1 {
		return nil
	}
	return m
}

// inLuaLayout reports whether t is in Lua's layout (see the top of the
// file): a hash part with its bookkeeping, or no hash part at all.
func inLuaLayout(t *lTable) bool {
	if t.keys == nil {
		return len(t.dict) == 0 && len(t.strdict) == 0
	}
	return metaOf(t) != nil
}

// arrayIndex is ltable.c's arrayindex: k as an integer, when it is one.
func arrayIndex(k lua.LValue) (int, bool) {
	n, ok := k.(lua.LNumber)
	if !ok {
		return 0, false
	}
	f := float64(n)
	if f < -(1<<52) || f > 1<<52 {
		return 0, false
	}
	i := int(f)
	return i, float64(i) == f
}

// NewTable is lua_createtable (ltable.c:luaH_new): a table with an array
// part of narr slots and a hash part for nrec keys.
func NewTable(L *lua.LState, narr, nrec int) *lua.LTable {
	narr, nrec = max(narr, 0), max(nrec, 0)
	lauxlib.Alloc(L, narr*slotBytes+nodeBytes*nrec)
	if t := newCombined(narr, nrec); t != nil {
		return t // see tablebuild.go
	}
	if narr > 0 && narr <= len(smallTable{}.a) {
		// The table and its few slots in one allocation (KEYS and
		// ARGV of a call, small constructors, decoded JSON arrays).
		st := &smallTable{}
		return withSlots(L, &st.t, st.a[:narr:narr], nrec)
	}
	if narr > 0 && narr <= len(smallTable8{}.a) {
		// The same up to 8 (an array reply such as HGETALL's of a
		// few fields, a decoded array).
		st := &smallTable8{}
		return withSlots(L, &st.t, st.a[:narr:narr], nrec)
	}
	t := L.CreateTable(0, 0)
	tb := tableOf(t)
	if narr > 0 {
		tb.array = nilSlots(narr)
	}
	setNodeVector(L, tb, nrec)
	if nrec > 8 {
		// A constructor's fields are mostly names: their values' map
		// made at its size, not grown past one group as they arrive.
		tb.strdict = make(map[string]lua.LValue, nrec)
	}
	return t
}

// withSlots makes t, allocated with its array slots a, a new table as
// L.CreateTable makes it: no metatable, every slot nil, a hash part for
// nrec keys.
func withSlots(L *lua.LState, t *lua.LTable, a []lua.LValue, nrec int) *lua.LTable {
	t.Metatable = lua.LNil
	for i := range a {
		a[i] = lua.LNil
	}
	tableOf(t).array = a
	setNodeVector(L, tableOf(t), nrec)
	return t
}

// freeNodes makes keys' size nodes free (nil keys, no chains, lastfree
// past the end) and puts the part's metadata m, in its userdata ud, in
// the slot after them.
func freeNodes(keys []lua.LValue, m *tabMeta, ud *lua.LUserData, size int) {
	m.lastfree = size
	for i := range size {
		keys[i] = lua.LNil
		m.next[i] = -1
	}
	ud.Value, ud.Metatable = m, lua.LNil
	keys[size] = ud
}

// smallTable is a table with room for a small array part.
type smallTable struct {
	t lua.LTable
	a [4]lua.LValue
}

type smallTable8 struct {
	t lua.LTable
	a [8]lua.LValue
}

func nilSlots(n int) []lua.LValue {
	a := make([]lua.LValue, n)
	for i := range a {
		a[i] = lua.LNil
	}
	return a
}

// Get is lua_rawget (ltable.c:luaH_get) on a table in either layout.
func Get(t *lua.LTable, k lua.LValue) lua.LValue {
	tb := tableOf(t)
	switch x := k.(type) {
	case lua.LString:
		if v, ok := tb.strdict[string(x)]; ok {
			return v
		}
		return lua.LNil
	case lua.LNumber:
		if i, ok := arrayIndex(x); ok && uint(i-1) < uint(len(tb.array)) {
			return tb.array[i-1]
		}
	case *lua.LNilType:
		return lua.LNil
	}
	if v, ok := tb.dict[k]; ok {
		return v
	}
	return lua.LNil
}

// GetInt is lua_rawgeti (ltable.c:luaH_getnum).
func GetInt(t *lua.LTable, i int) lua.LValue {
	tb := tableOf(t)
	if uint(i-1) < uint(len(tb.array)) {
		return tb.array[i-1]
	}
	if tb.dict == nil {
		return lua.LNil
	}
	if v, ok := tb.dict[lua.LNumber(i)]; ok {
		return v
	}
	return lua.LNil
}

// value is the value of node key k (nil when absent).
func (t *lTable) value(k lua.LValue) lua.LValue {
	if s, ok := k.(lua.LString); ok {
		if v, ok := t.strdict[string(s)]; ok {
			return v
		}
		return lua.LNil
	}
	if v, ok := t.dict[k]; ok {
		return v
	}
	return lua.LNil
}

// store sets the value of hash key k (nil deletes the value, not the key's
// node).
func (t *lTable) store(k, v lua.LValue) {
	if s, ok := k.(lua.LString); ok {
		if v == lua.LNil {
			delete(t.strdict, string(s))
			return
		}
		if t.strdict == nil {
			t.strdict = make(map[string]lua.LValue)
		}
		t.strdict[string(s)] = v
		return
	}
	if v == lua.LNil {
		delete(t.dict, k)
		return
	}
	if t.dict == nil {
		t.dict = make(map[lua.LValue]lua.LValue)
	}
	t.dict[k] = v
}

// RawSet is lua_rawset (ltable.c:luaH_set, then the store). k must not be
// nil or NaN (the caller raises Lua's error for those first). As in Lua, a
// new key gets its node even when v is nil.
func RawSet(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	tb := tableOf(t)
	if i, ok := arrayIndex(k); ok {
		setInt(L, tb, i, k, v)
		return
	}
	if s, ok := k.(lua.LString); ok {
		if _, ok := tb.strdict[string(s)]; ok {
			tb.store(k, v)
			return
		}
	}
	setNew(L, tb, k, v)
}

// setNew is RawSet of a key k that is not an integer and has no value in
// t (a string key missing from strdict: fastSetTable has looked already).
func setNew(L *lua.LState, tb *lTable, k, v lua.LValue) {
	normalize(L, tb)
	for !placeKey(L, tb, k) {
	}
	tb.store(k, v)
}

// RawSetInt is lua_rawseti.
func RawSetInt(L *lua.LState, t *lua.LTable, i int, v lua.LValue) {
	tb := tableOf(t)
	if uint(i-1) < uint(len(tb.array)) {
		tb.array[i-1] = v
		return
	}
	setInt(L, tb, i, lua.LNumber(i), v)
}

// RawSetString is t[k] = v for a string key, without metamethods.
func RawSetString(L *lua.LState, t *lua.LTable, k string, v lua.LValue) {
	RawSet(L, t, lua.LString(k), v)
}

// setInt is luaH_setnum and the store; k is i as a Lua number.
func setInt(L *lua.LState, tb *lTable, i int, k, v lua.LValue) {
	normalize(L, tb)
	for {
		if uint(i-1) < uint(len(tb.array)) {
			tb.array[i-1] = v
			return
		}
		if placeKey(L, tb, k) {
			tb.store(k, v)
			return
		}
	}
}

// Next is lua_next (ltable.c:luaH_next): the key and value after k (nil:
// the first), or nil when k was the last. ok is false when k is not a key
// of t (Lua's "invalid key to 'next'").
func Next(t *lua.LTable, k lua.LValue) (nk, v lua.LValue, ok bool) {
	tb := tableOf(t)
	if !inLuaLayout(tb) {
		return foreignNext(tb, k)
	}
	size := len(tb.array)
	m := metaOf(tb)
	i := -1
	if k != lua.LNil {
		if n, isInt := arrayIndex(k); isInt && n >= 1 && n <= size {
			i = n - 1
		} else if m == nil {
			return lua.LNil, lua.LNil, false
		} else if j := m.lastNext; j < len(m.next) && tb.keys[j] == k {
			// The key the last call returned, as a traversal passes it
			// back: its node without the hash and the chain.
			i = int(j) + size
		} else if j := chainFind(tb.keys, m, k); j >= 0 {
			i = j + size
		} else {
			return lua.LNil, lua.LNil, false
		}
	}
	for i++; i < size; i++ {
		if v := tb.array[i]; v != lua.LNil {
			return Number(float64(i + 1)), v, true
		}
	}
	nodes := len(tb.keys) - 1
	for i -= size; i < nodes; i++ {
		if key := tb.keys[i]; key != lua.LNil {
			if v := tb.value(key); v != lua.LNil {
				m.lastNext = i
				return key, v, true
			}
		}
	}
	return lua.LNil, lua.LNil, true
}

// Len is the `#` operator on a table (ltable.c:luaH_getn): a border, that
// is an n with t[n] non-nil and t[n+1] nil, or 0, found as Lua 5.1 finds
// it (so the same one when there are several).
func Len(t *lua.LTable) int {
	tb := tableOf(t)
	j := len(tb.array)
	if j > 0 && tb.array[j-1] == lua.LNil {
		i := 0
		for j-i > 1 {
			m := int(uint(i+j) / 2)
			if tb.array[m-1] == lua.LNil {
				j = m
			} else {
				i = m
			}
		}
		return i
	}
	if tb.keys == nil && len(tb.dict) == 0 {
		return j
	}
	return unboundSearch(t, j)
}

// unboundSearch is ltable.c's unbound_search.
func unboundSearch(t *lua.LTable, start int) int {
	i, j := uint64(start), uint64(start)+1
	for GetInt(t, int(j)) != lua.LNil {
		i = j
		j *= 2
		if j > math.MaxInt32 {
			// Lua's linear search, bounded by the keys present.
			k := 1
			for GetInt(t, k) != lua.LNil {
				k++
			}
			return k - 1
		}
	}
	for j-i > 1 {
		m := (i + j) / 2
		if GetInt(t, int(m)) == lua.LNil {
			j = m
		} else {
			i = m
		}
	}
	return int(i)
}

// Node placement (ltable.c).

// mainPosition is ltable.c's mainposition of k among size nodes.
func mainPosition(k lua.LValue, size int) int {
	switch x := k.(type) {
	case lua.LString:
		return int(lauxlib.StrHash(string(x)) & uint32(size-1))
	case lua.LNumber:
		if x == 0 {
			return 0
		}
		b := math.Float64bits(float64(x))
		return int((uint32(b) + uint32(b>>32)) % uint32((size-1)|1))
	case lua.LBool:
		if x {
			return 1 & (size - 1)
		}
		return 0
	}
	return int(uint32(pointerOf(k)) % uint32((size-1)|1))
}

// pointerOf is the address of a collectable value (Lua hashes those by
// address; so does this, and the order of such keys is no more
// reproducible than in Lua).
func pointerOf(k lua.LValue) uintptr {
	switch x := k.(type) {
	case *lua.LTable:
		return uintptr(unsafe.Pointer(x))
	case *lua.LFunction:
		return uintptr(unsafe.Pointer(x))
	case *lua.LUserData:
		return uintptr(unsafe.Pointer(x))
	case *lua.LState:
		return uintptr(unsafe.Pointer(x))
	}
	if v := reflect.ValueOf(k); v.Kind() == reflect.Chan {
		return v.Pointer()
	}
	return 0
}

// ceilLog2 is ltable.c's ceillog2 (x >= 1).
func ceilLog2(x int) int {
	l := 0
	for 1<<l < x {
		l++
	}
	return l
}

// setNodeVector is ltable.c's setnodevector: size free nodes (rounded up
// to a power of two), or the dummy node for 0.
func setNodeVector(L *lua.LState, t *lTable, size int) {
	setNodeVectorIn(L, t, size, 0, nil)
}

// setNodeVectorIn is setNodeVector with a block of at least room nodes,
// or in reuse's block (t's hash part, whose keys the caller has copied)
// when reuse is not nil.
func setNodeVectorIn(L *lua.LState, t *lTable, size, room int, reuse *tabMeta) {
	if size == 0 {
		t.keys, t.k2i = nil, nil
		return
	}
	lsize := ceilLog2(size)
	if lsize > maxBits {
		L.RaiseError("table overflow")
	}
	size = 1 << lsize
	var keys []lua.LValue
	var m *tabMeta
	var ud *lua.LUserData
	// A small hash part's nodes and bookkeeping in one allocation (a
	// table grown key by key is rehashed at 1, 2, 4 and 8 nodes), sized
	// to the part (or to room) so a small table takes little memory; the
	// slices keep the block's capacity, which resize grows into.
	switch room = max(room, size); {
	case reuse != nil:
		keys, m = t.keys[:size+1], reuse
		ud = t.keys[len(reuse.next)].(*lua.LUserData)
		m.next = m.next[:size]
		m.lastNext, m.used = 0, 0
	case room <= 2:
		sn := &nodes2{}
		keys, m, ud = sn.keys[:size+1], &sn.m, &sn.ud
		m.next = sn.next[:size]
	case room <= 4:
		sn := &nodes4{}
		keys, m, ud = sn.keys[:size+1], &sn.m, &sn.ud
		m.next = sn.next[:size]
	case room <= 8:
		sn := &nodes8{}
		keys, m, ud = sn.keys[:size+1], &sn.m, &sn.ud
		m.next = sn.next[:size]
	default:
		sn := &nodesMeta{}
		keys, m, ud = make([]lua.LValue, size+1), &sn.m, &sn.ud
		m.next = make([]int32, size)
	}
	freeNodes(keys, m, ud, size)
	if t.k2i == nil {
		t.k2i = make(map[lua.LValue]int)
	} else {
		clear(t.k2i) // what gopher-lua's setters appended (normalize)
	}
	t.keys = keys
}

// nodes2, nodes4 and nodes8 are hash parts of up to 2, 4 and 8 nodes:
// the keys with the bookkeeping's userdata after them, the userdata, the
// bookkeeping and its chain links.
type nodes2 struct {
	keys [3]lua.LValue
	ud   lua.LUserData
	m    tabMeta
	next [2]int32
}

type nodes4 struct {
	keys [5]lua.LValue
	ud   lua.LUserData
	m    tabMeta
	next [4]int32
}

type nodes8 struct {
	keys [9]lua.LValue
	ud   lua.LUserData
	m    tabMeta
	next [8]int32
}

// nodesMeta is a larger hash part's userdata and bookkeeping, in one
// allocation.
type nodesMeta struct {
	ud lua.LUserData
	m  tabMeta
}

// nodeOf is the node holding key k in t's hash part (Lua's layout), or
// -1: ltable.c's luaH_get, along the chain from k's main position.
func nodeOf(t *lTable, k lua.LValue) int {
	m := metaOf(t)
	if m == nil {
		return -1
	}
	return chainFind(t.keys, m, k)
}

func chainFind(keys []lua.LValue, m *tabMeta, k lua.LValue) int {
	for i := mainPosition(k, len(m.next)); i >= 0; i = int(m.next[i]) {
		if keys[i] == k {
			return i
		}
	}
	return -1
}

// getFreePos is ltable.c's getfreepos (-1: none).
func getFreePos(t *lTable, m *tabMeta) int {
	for m.lastfree > 0 {
		m.lastfree--
		if t.keys[m.lastfree] == lua.LNil {
			return m.lastfree
		}
	}
	return -1
}

// placeKey is luaH_set's search and ltable.c's newkey in one: true when k has its
// node (found along the chain from its main position, or given one), false
// when t was rehashed and k's place must be looked for again (it may now
// be in the array part). The main position is hashed once for both.
func placeKey(L *lua.LState, t *lTable, k lua.LValue) bool {
	m := metaOf(t)
	if m == nil {
		rehash(L, t, k)
		return false
	}
	mp := mainPosition(k, len(m.next))
	for i := mp; i >= 0; i = int(m.next[i]) {
		if t.keys[i] == k {
			return true
		}
	}
	return newKeyAt(L, t, m, k, mp, false)
}

// newKeyAt is ltable.c's newkey: it gives k (not in t), whose main
// position in t's hash part (m) is mp, a node and reports true, or
// rehashes t and reports false.
// live: every key in t's nodes has a value (a hash part being filled by
// resize or normalize), so a taken node is in use without looking its
// value up.
func newKeyAt(L *lua.LState, t *lTable, m *tabMeta, k lua.LValue, mp int, live bool) bool {
	size := len(m.next)
	old := t.keys[mp]
	if old == lua.LNil {
		m.used++
	} else if live || allLive(t, m) || t.value(old) != lua.LNil {
		n := getFreePos(t, m)
		if n < 0 {
			rehash(L, t, k)
			return false
		}
		other := mainPosition(old, size)
		if other != mp {
			// The colliding node is out of its main position: it moves
			// to the free node, and k takes its place.
			for int(m.next[other]) != mp {
				other = int(m.next[other])
			}
			m.next[other] = int32(n)
			t.keys[n] = old
			m.next[n] = m.next[mp]
			m.next[mp] = -1
			t.keys[mp] = lua.LNil
		} else {
			m.next[n] = m.next[mp]
			m.next[mp] = int32(n)
			mp = n
		}
		m.used++
	}
	// A key whose value is nil loses its node, as in Lua.
	t.keys[mp] = k
	return true
}

// countInt is ltable.c's countint.
func countInt(k lua.LValue, nums *[maxBits + 1]int) int {
	if i, ok := arrayIndex(k); ok && i > 0 && i <= 1<<maxBits {
		nums[ceilLog2(i)]++
		return 1
	}
	return 0
}

// computeSizes is ltable.c's computesizes.
func computeSizes(nums *[maxBits + 1]int, narray *int) int {
	a, na, n := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < *narray; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 {
				n = twotoi
				na = a
			}
		}
		if a == *narray {
			break
		}
	}
	*narray = n
	return na
}

// rehash is ltable.c's rehash: new sizes for both parts from the keys in
// use and ek, the key being inserted.
func rehash(L *lua.LState, t *lTable, ek lua.LValue) {
	var nums [maxBits + 1]int
	// numusearray
	nasize := 0
	i := 1
	for lg, ttlg := 0, 1; lg <= maxBits; lg, ttlg = lg+1, ttlg*2 {
		lim := ttlg
		if lim > len(t.array) {
			lim = len(t.array)
			if i > lim {
				break
			}
		}
		lc := 0
		for ; i <= lim; i++ {
			if t.array[i-1] != lua.LNil {
				lc++
			}
		}
		nums[lg] += lc
		nasize += lc
	}
	total := nasize
	// numusehash: every key with a value has an entry in dict or strdict
	// (and only those), so the maps are counted rather than the nodes.
	total += len(t.strdict) + len(t.dict)
	for k := range t.dict {
		nasize += countInt(k, &nums)
	}
	nasize += countInt(ek, &nums)
	total++
	na := computeSizes(&nums, &nasize)
	resize(L, t, nasize, total-na)
}

// resize is ltable.c's resize.
func resize(L *lua.LState, t *lTable, nasize, nhsize int) {
	grow := max(nasize-len(t.array), 0)
	lauxlib.Alloc(L, grow*slotBytes+nodeBytes*nhsize)
	oldKeys := t.keys
	oldMeta := metaOf(t)
	live := oldMeta != nil && allLive(t, oldMeta)
	oldSize := 0
	if oldMeta != nil {
		oldSize = len(oldMeta.next)
	}
	oldArray := t.array
	var kept [4]lua.LValue
	if nasize > len(t.array) {
		a := make([]lua.LValue, nasize)
		copy(a, t.array)
		for i := len(t.array); i < nasize; i++ {
			a[i] = lua.LNil
		}
		t.array = a
	}
	switch {
	case fastTables && oldMeta == nil && t.keys == nil && nhsize <= 2:
		// A table growing key by key from an empty hash part: its
		// next two growths (to 2 and 4 nodes) fit in the same block.
		setNodeVectorIn(L, t, nhsize, 4, nil)
	case fastTables && oldMeta != nil && oldSize <= len(kept) && nhsize > oldSize && 1<<ceilLog2(nhsize) <= cap(oldMeta.next):
		// Grown inside its block: the old keys are copied out first.
		oldKeys = kept[:copy(kept[:], oldKeys[:oldSize])]
		setNodeVectorIn(L, t, nhsize, 0, oldMeta)
	default:
		setNodeVector(L, t, nhsize)
	}
	if nasize < len(oldArray) {
		t.array = append([]lua.LValue(nil), oldArray[:nasize]...)
		for i := nasize; i < len(oldArray); i++ {
			if v := oldArray[i]; v != lua.LNil {
				k := lua.LNumber(i + 1)
				insertNew(L, t, k)
				t.store(k, v)
			}
		}
	}
	if oldMeta == nil {
		return
	}
	for i := oldSize - 1; i >= 0; i-- {
		k := oldKeys[i]
		if k == lua.LNil {
			continue
		}
		if n, ok := arrayIndex(k); ok && uint(n-1) < uint(len(t.array)) {
			if v := t.value(k); v != lua.LNil {
				t.array[n-1] = v
				t.store(k, lua.LNil)
			}
			continue
		}
		if !live && t.value(k) == lua.LNil {
			continue
		}
		insertNew(L, t, k)
	}
}

// insertNew gives k, not in t, a node (or an array slot) without
// touching its value.
func insertNew(L *lua.LState, t *lTable, k lua.LValue) {
	for !refill(L, t, k) {
		if n, ok := arrayIndex(k); ok && uint(n-1) < uint(len(t.array)) {
			return
		}
	}
}

// refill is newKeyAt into a hash part being filled with live keys.
func refill(L *lua.LState, t *lTable, k lua.LValue) bool {
	m := metaOf(t)
	if m == nil {
		rehash(L, t, k)
		return false
	}
	return newKeyAt(L, t, m, k, mainPosition(k, len(m.next)), true)
}

// normalize puts a table that gopher-lua's setters wrote into Lua's
// layout: its hash keys, in gopher-lua's order, in a new hash part.
func normalize(L *lua.LState, t *lTable) {
	if inLuaLayout(t) {
		return
	}
	type entry struct{ k, v lua.LValue }
	var live []entry
	keys := t.keys
	if keys == nil {
		for k := range t.strdict {
			keys = append(keys, lua.LString(k))
		}
		for k := range t.dict {
			keys = append(keys, k)
		}
	}
	seen := make(map[lua.LValue]bool, len(keys))
	for _, k := range keys {
		if k == lua.LNil || seen[k] {
			continue
		}
		if ud, ok := k.(*lua.LUserData); ok {
			if _, ok := ud.Value.(*tabMeta); ok {
				continue
			}
		}
		seen[k] = true
		if n, ok := arrayIndex(k); ok && uint(n-1) < uint(len(t.array)) {
			continue // the array's value is the newer one
		}
		if v := t.value(k); v != lua.LNil {
			live = append(live, entry{k, v})
		}
	}
	lauxlib.Alloc(L, nodeBytes*len(live))
	clear(t.dict)
	clear(t.strdict)
	setNodeVector(L, t, len(live))
	for _, e := range live {
		insertNew(L, t, e.k)
		t.store(e.k, e.v)
	}
}

// ArrayOnly reports whether t, in Lua's layout, has no hash part, and the
// size of its array part.
func ArrayOnly(t *lua.LTable) (int, bool) {
	tb := tableOf(t)
	if tb.keys != nil || len(tb.dict) != 0 || len(tb.strdict) != 0 {
		return 0, false
	}
	return len(tb.array), true
}

// foreignNext is Next over gopher-lua's layout: the array, then the keys
// in insertion order. (gopher-lua's own LTable.Next loops forever on an
// integer key in its hash part when the array is empty.) A table in Lua's
// layout that gopher-lua's setters then wrote keeps its hash part, the
// keys they appended after it: a key has its node's place when it has a
// node (gopher-lua's k2i knows only the appended keys, so it appends a
// node's key again when it writes one).
func foreignNext(t *lTable, k lua.LValue) (nk, v lua.LValue, ok bool) {
	size := len(t.array)
	m := embeddedMeta(t)
	i := -1
	if k != lua.LNil {
		if n, isInt := arrayIndex(k); isInt && n >= 1 && n <= size {
			i = n - 1
		} else if j := embeddedNode(t, m, k); j >= 0 {
			i = j + size
		} else if j, found := t.k2i[k]; found && j < len(t.keys) {
			i = j + size
		} else {
			return lua.LNil, lua.LNil, false
		}
	}
	for i++; i < size; i++ {
		if v := t.array[i]; v != lua.LNil {
			return Number(float64(i + 1)), v, true
		}
	}
	for i -= size; i < len(t.keys); i++ {
		key := t.keys[i]
		if key == lua.LNil || key == nil {
			continue
		}
		if n, isInt := arrayIndex(key); isInt && n >= 1 && n <= size {
			continue // the array's value is the one Get sees
		}
		if m != nil && i > len(m.next) && embeddedNode(t, m, key) >= 0 {
			continue // visited at its node
		}
		if v := t.value(key); v != lua.LNil {
			return key, v, true
		}
	}
	return lua.LNil, lua.LNil, true
}

// embeddedMeta is the bookkeeping of a hash part in Lua's layout that
// gopher-lua's setters appended keys after (at keys[n], n nodes), or nil.
func embeddedMeta(t *lTable) *tabMeta {
	for n := 1; n < len(t.keys) && n <= 1<<maxBits; n <<= 1 {
		if ud, ok := t.keys[n].(*lua.LUserData); ok {
			if m, ok := ud.Value.(*tabMeta); ok && len(m.next) == n {
				return m
			}
		}
	}
	return nil
}

// embeddedNode is the node of k in the hash part m describes, or -1.
func embeddedNode(t *lTable, m *tabMeta, k lua.LValue) int {
	if m == nil {
		return -1
	}
	return chainFind(t.keys, m, k)
}

// maxPresized is the longest sequence SequenceTable sizes at once: past
// it, one allocation of the whole array would be a larger single request
// to the budget than Lua's doublings ever make (lauxlib.Alloc refuses
// requests past the string limit), so longer ones are built as Lua builds
// them.
const maxPresized = 1 << 16

// SequenceTable is the table Lua 5.1 makes of `t = {}` followed by
// lua_rawseti(t, 1 .. n) in order with non-nil values (how Redis turns an
// array reply into a table): each append past the array part rehashes to
// the smallest power of two holding the keys so far, so the end is an
// array part of the smallest power of two >= n and no hash part. Made at
// that size at once, it skips the log2(n) arrays in between (the same
// bytes are charged: the doublings add up to the last size). A nil value
// breaks the pattern: the caller then rebuilds with Resequence.
func SequenceTable(L *lua.LState, n int) *lua.LTable {
	if n > maxPresized {
		return NewTable(L, 0, 0)
	}
	return NewTable(L, ArraySize(n), 0)
}

// ArraySize is the array part of a Lua 5.1 table filled with t[1] ..
// t[n] in order: the power of two at or above n (0 for none).
func ArraySize(n int) int {
	if n <= 0 {
		return 0
	}
	return 1 << ceilLog2(n)
}

// Resequence is the table Lua makes of `t = {}` followed by t[1 .. j] =
// the first j values of seq (a SequenceTable, all of them non-nil) in
// order, one at a time.
func Resequence(L *lua.LState, seq *lua.LTable, j int) *lua.LTable {
	t := NewTable(L, 0, 0)
	for i := 1; i <= j; i++ {
		RawSetInt(L, t, i, GetInt(seq, i))
	}
	return t
}
