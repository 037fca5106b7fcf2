package lauxlib

import lua "github.com/yuin/gopher-lua"

// Building a table of string keys at once, in Lua's layout.
//
// lua_cjson and lua_cmsgpack build an object with lua_newtable and then
// one lua_rawset per key. The layout that leaves (which node holds which
// key, the chains, the free pointer) decides the order next and pairs
// walk the keys in, so cjson.encode of a decoded object writes its keys in
// Redis's order only if the layout is Lua's. Inserting key by key makes
// ltable.c grow the hash part at 1, 2, 4, 8 ... nodes, each growth a new
// node vector and its maps. The same layout comes out of one table made
// with room for every key (lua_createtable(L, 0, n)) when the keys go in
// in the right order: the last growth's re-insertions (its old nodes from
// the last down, as ltable.c's resize walks them) and then the keys that
// came after. TableOrder finds that order by replaying the growths on
// node indexes alone.

// MaxAtOnce is the most elements a decoder puts into a table made at once
// (TableOrder, or an array part of the right size). Past it a table is
// filled one element at a time: each growth is then charged to the script
// as it happens, and the largest charge is half the part's size rather
// than all of it, so big documents meet the memory limits exactly where
// they met them before tables were made at once.
const MaxAtOnce = 1 << 12

// Push appends v to *st, a decoder's stack of values not yet in their
// table, charging L's script for the stack's growth before it grows.
func Push(L *lua.LState, st *[]lua.LValue, v lua.LValue) {
	if n := len(*st); n == cap(*st) {
		c := max(2*n, 8)
		if n >= 1024 {
			c = n + n/4
		}
		Alloc(L, 16*(c-n))
		ns := make([]lua.LValue, n, c)
		copy(ns, *st)
		*st = ns
	}
	*st = append(*st, v)
}

// StrHash is the hash of a string that gives a string key its main
// position among a table's nodes (lstring.c's luaS_newlstr, which seam's
// tables and TableOrder both use). Redis's deps/lua hashes every byte
// (step 1); stock Lua 5.1 samples a string longer than 32 bytes in steps
// of len/32+1, which puts long keys elsewhere and changes the order
// pairs, cjson.encode and cmsgpack.pack give them.
func StrHash(s string) uint32 {
	h := uint32(len(s))
	for i := len(s); i > 0; i-- {
		h ^= (h << 5) + (h >> 2) + uint32(s[i-1])
	}
	return h
}

// TableOrder is the scratch space of Order, reused from call to call.
type TableOrder struct {
	hash  []uint32
	node  []int32 // key index held by each node, -1 free
	next  []int32 // chain link of each node, -1 none
	seq   []int32
	order []int32
	keys  []lua.LValue
	// lastfree is ltable.c's lastfree in the layout the last Order
	// left (see Layout).
	lastfree int
	// memo holds the layouts of the last few small key sequences: a
	// decoder meets the same objects' keys run after run, and a layout
	// depends on nothing but the keys and their order.
	memo [memoSlots]orderMemo
}

// orderMemo is one key sequence's order and layout.
type orderMemo struct {
	seq              uint32 // the keys' hashes combined
	keys             []string
	order, node, nxt []int32
	lastfree         int
}

// A sequence of at most memoKeys keys of at most MaxInterned bytes each is
// remembered, in one of memoSlots slots: what a memo keeps alive is
// bounded, as long as the keys do not share a larger string's memory (the
// decoders' keys are copies, see Interner).
const (
	memoSlots = 8
	memoKeys  = 16
)

// maxKeptOrder bounds the scratch a TableOrder keeps between calls.
const maxKeptOrder = 1 << 12

// Order returns the order in which to insert keys, all strings (values
// none of them nil), into a table made with room for len(keys) hash keys
// so that it ends in the layout inserting them in their own order into an
// empty table gives. ok is false when two keys are equal or one is not a
// string: the caller then inserts them one by one. The result is valid
// until the next call.
func (o *TableOrder) Order(keys []lua.LValue) (order []int32, ok bool) {
	n := len(keys)
	o.trim()
	o.hash = o.hash[:0]
	seq, short := uint32(n), n <= memoKeys
	for _, k := range keys {
		s, isStr := k.(lua.LString)
		if !isStr {
			return nil, false
		}
		h := StrHash(string(s))
		o.hash = append(o.hash, h)
		seq = seq*31 + h
		short = short && len(s) <= MaxInterned
	}
	if !short {
		return o.replay(keys)
	}
	m := &o.memo[seq%memoSlots]
	if m.seq == seq && len(m.keys) == n && m.keys != nil && sameKeys(m.keys, keys) {
		o.order = append(o.order[:0], m.order...)
		o.node = append(o.node[:0], m.node...)
		o.next = append(o.next[:0], m.nxt...)
		o.lastfree = m.lastfree
		return o.order, true
	}
	if order, ok = o.replay(keys); ok {
		m.seq, m.lastfree = seq, o.lastfree
		m.keys = m.keys[:0]
		for _, k := range keys {
			m.keys = append(m.keys, string(k.(lua.LString)))
		}
		m.order = append(m.order[:0], o.order...)
		m.node = append(m.node[:0], o.node...)
		m.nxt = append(m.nxt[:0], o.next...)
	}
	return order, ok
}

func sameKeys(a []string, keys []lua.LValue) bool {
	for i, k := range keys {
		if a[i] != string(k.(lua.LString)) {
			return false
		}
	}
	return true
}

// replay is Order without the memo: o.hash holds the keys' hashes.
func (o *TableOrder) replay(keys []lua.LValue) (order []int32, ok bool) {
	n := len(keys)
	o.keys = keys
	defer func() { o.keys = nil }()
	o.seq = o.seq[:0]
	j := 0
	for size := 1; ; size *= 2 {
		o.reset(size)
		lastfree := size
		for _, k := range o.seq {
			if r := o.insert(k, size, &lastfree); r != inserted {
				return nil, false // cannot happen: the keys fit and are distinct
			}
		}
		start := j
		for ; j < n; j++ {
			r := o.insert(int32(j), size, &lastfree)
			if r == duplicate {
				return nil, false
			}
			if r == full {
				break
			}
		}
		if j == n {
			o.order = append(o.order[:0], o.seq...)
			for i := start; i < n; i++ {
				o.order = append(o.order, int32(i))
			}
			o.lastfree = lastfree
			return o.order, true
		}
		// Full: the next size's table takes the nodes from the last
		// down, then key j.
		o.seq = o.seq[:0]
		for i := size - 1; i >= 0; i-- {
			o.seq = append(o.seq, o.node[i])
		}
	}
}

func (o *TableOrder) reset(size int) {
	if cap(o.node) < size {
		o.node = make([]int32, size)
		o.next = make([]int32, size)
	}
	o.node, o.next = o.node[:size], o.next[:size]
	for i := range o.node {
		o.node[i], o.next[i] = -1, -1
	}
}

// Layout is the hash part the last Order that succeeded replayed its
// keys into: node[i] is the index of the key node i holds (-1: free),
// next[i] its chain link (-1: none), lastfree ltable.c's lastfree. A
// table made with len(node) nodes and filled in Order's order is in this
// layout (seam.HashTable makes it at once). Valid until the next Order.
func (o *TableOrder) Layout() (node, next []int32, lastfree int) {
	return o.node, o.next, o.lastfree
}

// trim drops scratch a previous call grew past maxKeptOrder.
func (o *TableOrder) trim() {
	if cap(o.node) > maxKeptOrder {
		o.node, o.next, o.hash, o.seq = nil, nil, nil, nil
	}
}

const (
	inserted = iota
	full
	duplicate
)

// insert is ltable.c's newkey (after luaH_get found no key) for key k.
func (o *TableOrder) insert(k int32, size int, lastfree *int) int {
	mask := uint32(size - 1)
	mp := int32(o.hash[k] & mask)
	for i := mp; i >= 0; i = o.next[i] {
		if x := o.node[i]; x >= 0 && o.hash[x] == o.hash[k] && o.keys[x] == o.keys[k] {
			return duplicate
		}
	}
	old := o.node[mp]
	if old < 0 {
		o.node[mp] = k
		return inserted
	}
	f := int32(-1)
	for *lastfree > 0 {
		*lastfree--
		if o.node[*lastfree] < 0 {
			f = int32(*lastfree)
			break
		}
	}
	if f < 0 {
		return full
	}
	if other := int32(o.hash[old] & mask); other != mp {
		// The node is out of its main position: it moves to the free
		// node and k takes its place.
		for o.next[other] != mp {
			other = o.next[other]
		}
		o.next[other] = f
		o.node[f] = old
		o.next[f] = o.next[mp]
		o.next[mp] = -1
		o.node[mp] = k
		return inserted
	}
	o.next[f] = o.next[mp]
	o.next[mp] = f
	o.node[f] = k
	return inserted
}
