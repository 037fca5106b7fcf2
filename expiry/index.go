package expiry

// Index is a min-heap of deadlines: it answers "which key falls due next" in
// O(1) and hands out due keys in O(log n) each, without scanning the
// keyspace.
//
// An item names its key by an opaque reference the owner of the data
// chooses (the keyspace uses the key's slot number) and a database number,
// 16 bytes in all, so the index holds no pointers for the GC to scan.
//
// It is lazy: a key's deadline is pushed when set, and nothing is removed
// when the key is deleted, overwritten or given another TTL. The owner of
// the data checks each popped item against the key's current deadline and
// ignores stale ones. Compact drops stale items in bulk once they outnumber
// live ones, which keeps the heap within a small factor of the number of
// keys that have a TTL. Index is not safe for concurrent use; the keyspace
// owner goroutine is its only user.
type Index struct {
	items []item
}

type item struct {
	deadline int64
	ref      uint32
	db       int32
}

// Len returns the number of items, stale ones included.
func (x *Index) Len() int { return len(x.items) }

// Push records that the key ref in db is due at deadline (Unix ms).
func (x *Index) Push(deadline int64, db int, ref uint32) {
	x.items = append(x.items, item{deadline, ref, int32(db)})
	x.up(len(x.items) - 1)
}

// Next returns the earliest deadline, or false when the index is empty.
func (x *Index) Next() (int64, bool) {
	if len(x.items) == 0 {
		return 0, false
	}
	return x.items[0].deadline, true
}

// PopDue removes items whose deadline is before now (deadline < now, the
// moment Redis considers a key expired), at most max of them, calling fn for
// each. It returns how many it removed.
func (x *Index) PopDue(now int64, max int, fn func(db int, ref uint32, deadline int64)) int {
	n := 0
	for n < max && len(x.items) > 0 && x.items[0].deadline < now {
		it := x.items[0]
		last := len(x.items) - 1
		x.items[0] = x.items[last]
		x.items[last] = item{}
		x.items = x.items[:last]
		if last > 0 {
			x.down(0)
		}
		fn(int(it.db), it.ref, it.deadline)
		n++
	}
	return n
}

// Compact keeps only the items for which live returns true and rebuilds the
// heap in O(n).
func (x *Index) Compact(live func(db int, ref uint32, deadline int64) bool) {
	kept := x.items[:0]
	for _, it := range x.items {
		if live(int(it.db), it.ref, it.deadline) {
			kept = append(kept, it)
		}
	}
	clear(x.items[len(kept):])
	x.items = kept
	if cap(x.items) > 1024 && cap(x.items) > 4*len(x.items) {
		x.items = append([]item(nil), x.items...)
	}
	for i := len(x.items)/2 - 1; i >= 0; i-- {
		x.down(i)
	}
}

// Renumber replaces the ref of every item of database db by to(ref), for
// an owner that moved its keys (the keyspace compacting a database after
// mass deletes). Deadlines stay, so the heap keeps its order.
func (x *Index) Renumber(db int, to func(ref uint32) uint32) {
	for i := range x.items {
		if it := &x.items[i]; int(it.db) == db {
			it.ref = to(it.ref)
		}
	}
}

// SwapDBs gives the items of database a to database b and those of b to
// a (SWAPDB). Deadlines stay, so the heap keeps its order.
func (x *Index) SwapDBs(a, b int) {
	for i := range x.items {
		switch it := &x.items[i]; int(it.db) {
		case a:
			it.db = int32(b)
		case b:
			it.db = int32(a)
		}
	}
}

// Reset empties the index.
func (x *Index) Reset() { x.items = nil }

func (x *Index) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if x.items[p].deadline <= x.items[i].deadline {
			return
		}
		x.items[p], x.items[i] = x.items[i], x.items[p]
		i = p
	}
}

func (x *Index) down(i int) {
	n := len(x.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && x.items[r].deadline < x.items[l].deadline {
			m = r
		}
		if x.items[i].deadline <= x.items[m].deadline {
			return
		}
		x.items[i], x.items[m] = x.items[m], x.items[i]
		i = m
	}
}
