// Package dict is the hash table of large hashes, sets and sorted sets: a
// map from string keys to values. Entries sit in a slice of slots; a small
// open-addressing table of 8-byte cells (hash in the high half, slot+1 in
// the low half) finds a key's slot. An entry only ever moves to a lower
// slot (when a dict that lost three quarters of its entries is compacted),
// so a scan from the highest slot down keeps Redis's SCAN guarantee: an
// element present for the whole scan is returned (perhaps twice), one added
// or removed meanwhile may or may not be. At least a quarter of the slots
// are live, so a random live slot is a fair random element found in a few
// tries.
package dict

import (
	"hash/maphash"
	"unsafe"
)

// Dict maps string keys to values of type V. The zero Dict is empty and
// ready to use.
type Dict[V any] struct {
	slots []slot[V]
	free  []uint32 // slots of deleted entries, reused first
	cells []uint64 // 0: empty; tombstone; else hash<<32 | slot+1
	used  int
	dead  int
	keys  int64 // bytes of the keys held
}

// seed is the hash seed of every dict: random per process, so that no
// client can choose keys that collide.
var seed = maphash.MakeSeed()

type slot[V any] struct {
	key  string
	val  V
	live bool
}

const tombstone = 1<<64 - 1

func (d *Dict[V]) hash(key []byte) uint32 { return uint32(maphash.Bytes(seed, key)) }

// Len is the number of entries.
func (d *Dict[V]) Len() int { return d.used }

// Size is the bytes the dict holds: its slots, cells and keys.
func (d *Dict[V]) Size() int64 {
	var s slot[V]
	return int64(cap(d.slots))*int64(unsafe.Sizeof(s)) + int64(cap(d.cells))*8 + int64(cap(d.free))*4 + d.keys
}

// find returns key's slot, or false.
func (d *Dict[V]) find(key []byte) (uint32, bool) {
	if d.used == 0 {
		return 0, false
	}
	h := d.hash(key)
	mask := uint32(len(d.cells) - 1)
	for pos := h & mask; ; pos = (pos + 1) & mask {
		cell := d.cells[pos]
		switch {
		case cell == 0:
			return 0, false
		case cell != tombstone && uint32(cell>>32) == h:
			i := uint32(cell) - 1
			if d.slots[i].key == string(key) {
				return i, true
			}
		}
	}
}

// Get returns key's value.
func (d *Dict[V]) Get(key []byte) (V, bool) {
	if i, ok := d.find(key); ok {
		return d.slots[i].val, true
	}
	var zero V
	return zero, false
}

// Ref returns a pointer to key's value, valid until the next Set or Delete.
func (d *Dict[V]) Ref(key []byte) (*V, bool) {
	if i, ok := d.find(key); ok {
		return &d.slots[i].val, true
	}
	return nil, false
}

// Set makes key's value val and reports whether key is new.
func (d *Dict[V]) Set(key []byte, val V) bool {
	if i, ok := d.find(key); ok {
		d.slots[i].val = val
		return false
	}
	var i uint32
	s := slot[V]{key: string(key), val: val, live: true}
	if n := len(d.free); n > 0 {
		i = d.free[n-1]
		d.free = d.free[:n-1]
		d.slots[i] = s
	} else {
		i = uint32(len(d.slots))
		d.slots = append(d.slots, s)
	}
	if (d.used+d.dead+1)*4 > len(d.cells)*3 {
		d.resize()
	}
	d.place(d.hash(key), i)
	d.used++
	d.keys += int64(len(key))
	return true
}

func (d *Dict[V]) place(h uint32, i uint32) {
	mask := uint32(len(d.cells) - 1)
	for pos := h & mask; ; pos = (pos + 1) & mask {
		if cell := d.cells[pos]; cell == 0 || cell == tombstone {
			if cell == tombstone {
				d.dead--
			}
			d.cells[pos] = uint64(h)<<32 | uint64(i+1)
			return
		}
	}
}

// resize rebuilds the cells for the live entries at a load of at most 3/8.
func (d *Dict[V]) resize() {
	size := 8
	for size*3 < (d.used+1)*8 {
		size *= 2
	}
	old := d.cells
	d.cells = make([]uint64, size)
	d.dead = 0
	for _, cell := range old {
		if cell != 0 && cell != tombstone {
			d.place(uint32(cell>>32), uint32(cell)-1)
		}
	}
}

// Delete removes key and reports whether it was there.
func (d *Dict[V]) Delete(key []byte) bool {
	i, ok := d.find(key)
	if !ok {
		return false
	}
	h := d.hash(key)
	mask := uint32(len(d.cells) - 1)
	pos := h & mask
	for d.cells[pos] != uint64(h)<<32|uint64(i+1) {
		pos = (pos + 1) & mask
	}
	d.cells[pos] = tombstone
	d.dead++
	for d.cells[(pos+1)&mask] == 0 && d.cells[pos] == tombstone {
		d.cells[pos] = 0
		d.dead--
		pos = (pos - 1) & mask
	}
	d.keys -= int64(len(d.slots[i].key))
	d.slots[i] = slot[V]{}
	d.used--
	d.free = append(d.free, i)
	switch {
	case d.used == 0:
		*d = Dict[V]{}
	case len(d.slots) > 32 && d.used < len(d.slots)/4:
		d.compact()
	}
	return true
}

// compact moves the live entries to the lowest slots, in their order (so
// each moves down or stays), and rebuilds the cells.
func (d *Dict[V]) compact() {
	slots := make([]slot[V], 0, d.used*2)
	for i := range d.slots {
		if d.slots[i].live {
			slots = append(slots, d.slots[i])
		}
	}
	d.slots, d.free = slots, nil
	d.cells = nil
	d.dead = 0
	d.resize()
	for i := range d.slots {
		d.place(d.hash([]byte(d.slots[i].key)), uint32(i))
	}
}

// Scan visits up to count slots from cursor (0 starts a scan) downwards,
// calling f for each live entry, and returns the cursor to continue from,
// 0 when the scan is complete. A cursor is 1 + the next slot to visit.
func (d *Dict[V]) Scan(cursor uint64, count int, f func(key string, val V)) uint64 {
	i := len(d.slots) - 1
	if cursor > 0 && cursor-1 < uint64(i) {
		i = int(cursor - 1)
	}
	for ; i >= 0 && count > 0; i-- {
		if s := &d.slots[i]; s.live {
			f(s.key, s.val)
			count--
		}
	}
	if i < 0 {
		return 0
	}
	return uint64(i) + 1
}

// All calls f for every entry, in slot order, until f returns false.
func (d *Dict[V]) All(f func(key string, val V) bool) {
	for i := range d.slots {
		if s := &d.slots[i]; s.live && !f(s.key, s.val) {
			return
		}
	}
}

// Random returns a random entry, each equally likely; r returns a random
// int in [0, n). The dict must not be empty.
func (d *Dict[V]) Random(r func(n int) int) (string, V) {
	// Slots are at least a quarter live (deletions free slots that the
	// next insertions reuse, and an empty dict starts afresh), so this
	// takes a few tries on average.
	for {
		if s := &d.slots[r(len(d.slots))]; s.live {
			return s.key, s.val
		}
	}
}

// Clone returns a copy of d.
func (d *Dict[V]) Clone() *Dict[V] {
	c := *d
	c.slots = append([]slot[V](nil), d.slots...)
	c.free = append([]uint32(nil), d.free...)
	c.cells = append([]uint64(nil), d.cells...)
	return &c
}
