// Package dict is the hash table of large hashes, sets and sorted sets: a
// map from string keys to values. Entries sit in numbered slots: a slot's
// key is a uvarint length and the key's bytes in a byte chunk shared by
// 1024 consecutive slots (one allocation per chunk rather than a string
// per key), its value sits in a parallel slice. A small open-addressing
// table of 4-byte cells (the slot+1 in the low bits, the high bits of the
// key's hash above them as a tag) finds a key's slot.
//
// An entry only ever moves to a lower slot (when a dict that lost three
// quarters of its entries is compacted), so a scan from the highest slot
// down keeps Redis's SCAN guarantee: an element present for the whole scan
// is returned (perhaps twice), one added or removed meanwhile may or may
// not be. At least a quarter of the slots are live, so a random live slot
// is a fair random element found in a few tries.
//
// Chunks are append-only: a key's bytes never change once written (a
// chunk with too many deleted keys is rewritten into a new allocation), so
// the strings Scan, All, Random and Key return alias the chunks without a
// copy and stay valid forever.
package dict

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

const (
	chunkShift = 10 // 1024 slots per chunk
	// longKey is the length from which a key gets an allocation of its
	// own, so a chunk stays far below 4 GiB (its offsets are uint32).
	longKey = 1 << 20
	// Slot offsets with these values: a free slot, a long key.
	offFree = 1<<32 - 1
	offLong = 1<<32 - 2
)

// Dict maps string keys to values of type V. The zero Dict is empty and
// ready to use. It holds fewer than 2^32-2 slots.
type Dict[V any] struct {
	offs   []uint32 // per slot: offset of its key in its chunk, offFree or offLong
	vals   []V
	chunks [][]byte
	dead   []uint32          // per chunk: bytes of deleted keys
	long   map[uint32]string // keys of offLong slots
	free   []uint32          // free slots, reused first
	cells  []uint32          // 0: empty; tomb(); else tag<<sb | slot+1
	sb     uint8             // bits of a cell's slot part
	used   int
	tombs  int
	keys   int64 // bytes of the keys held
	arena  int64 // bytes of the chunks and long keys
}

// seed is the hash seed of every dict: random per process, so that no
// client can choose keys that collide.
var seed = maphash.MakeSeed()

func hash(key []byte) uint32 { return uint32(maphash.Bytes(seed, key)) }

func hashString(key string) uint32 { return uint32(maphash.String(seed, key)) }

func (d *Dict[V]) slotMask() uint32 { return uint32(1<<d.sb - 1) }

// tomb is a deleted cell: slot part all ones.
func (d *Dict[V]) tomb() uint32 { return d.slotMask() }

func (d *Dict[V]) tag(h uint32) uint32 {
	if d.sb >= 32 {
		return 0
	}
	return h >> d.sb << d.sb
}

// Len is the number of entries.
func (d *Dict[V]) Len() int { return d.used }

// Size is the bytes the dict holds: its slots, chunks, cells and keys.
func (d *Dict[V]) Size() int64 {
	var v V
	return int64(cap(d.offs))*4 + int64(cap(d.vals))*int64(unsafe.Sizeof(v)) + int64(cap(d.cells))*4 +
		int64(cap(d.free))*4 + int64(cap(d.chunks))*24 + int64(cap(d.dead))*4 + d.arena
}

// Slots is the number of slots, live or free: every slot number of the
// dict is below it.
func (d *Dict[V]) Slots() int { return len(d.offs) }

// Key returns slot i's key; the slot is live.
func (d *Dict[V]) Key(i uint32) string {
	off := d.offs[i]
	if off == offLong {
		return d.long[i]
	}
	c := d.chunks[i>>chunkShift]
	n, w := uint64(c[off]), 1
	if n >= 0x80 {
		n, w = binary.Uvarint(c[off:])
	}
	if n == 0 {
		return ""
	}
	return unsafe.String(&c[int(off)+w], int(n))
}

func (d *Dict[V]) live(i uint32) bool { return d.offs[i] != offFree }

// Val returns slot i's value; the slot is live.
func (d *Dict[V]) Val(i uint32) V { return d.vals[i] }

// ValRef returns a pointer to slot i's value, valid until the next Insert,
// Set or Delete; the slot is live.
func (d *Dict[V]) ValRef(i uint32) *V { return &d.vals[i] }

// Find returns key's slot, or false.
func (d *Dict[V]) Find(key []byte) (uint32, bool) {
	if d.used == 0 {
		return 0, false
	}
	h := hash(key)
	tag, sm := d.tag(h), d.slotMask()
	mask := uint32(len(d.cells) - 1)
	for pos := h & mask; ; pos = (pos + 1) & mask {
		cell := d.cells[pos]
		switch {
		case cell == 0:
			return 0, false
		case cell&^sm == tag && cell&sm != sm:
			i := cell&sm - 1
			if d.Key(i) == string(key) {
				return i, true
			}
		}
	}
}

// Get returns key's value.
func (d *Dict[V]) Get(key []byte) (V, bool) {
	if i, ok := d.Find(key); ok {
		return d.vals[i], true
	}
	var zero V
	return zero, false
}

// Ref returns a pointer to key's value, valid until the next Set or Delete.
func (d *Dict[V]) Ref(key []byte) (*V, bool) {
	if i, ok := d.Find(key); ok {
		return &d.vals[i], true
	}
	return nil, false
}

// Set makes key's value val and reports whether key is new.
func (d *Dict[V]) Set(key []byte, val V) bool {
	_, isNew := d.Insert(key, val)
	return isNew
}

// Insert makes key's value val and returns its slot and whether key is new.
func (d *Dict[V]) Insert(key []byte, val V) (uint32, bool) {
	if i, ok := d.Find(key); ok {
		d.vals[i] = val
		return i, false
	}
	var i uint32
	if n := len(d.free); n > 0 {
		i = d.free[n-1]
		d.free = d.free[:n-1]
		d.vals[i] = val
	} else {
		i = uint32(len(d.offs))
		d.offs = append(d.offs, offFree)
		d.vals = append(d.vals, val)
	}
	d.writeKey(i, key)
	if (d.used+d.tombs+1)*4 > len(d.cells)*3 || i+2 >= d.slotMask() {
		d.used++
		d.rebuild()
	} else {
		d.place(hash(key), i)
		d.used++
	}
	d.keys += int64(len(key))
	return i, true
}

// writeKey stores key as slot i's.
func (d *Dict[V]) writeKey(i uint32, key []byte) {
	if len(key) >= longKey {
		if d.long == nil {
			d.long = map[uint32]string{}
		}
		d.long[i] = string(key)
		d.offs[i] = offLong
		d.arena += int64(len(key)) + 32
		return
	}
	ci := int(i >> chunkShift)
	for len(d.chunks) <= ci {
		d.chunks = append(d.chunks, nil)
		d.dead = append(d.dead, 0)
	}
	c := d.chunks[ci]
	need := binary.MaxVarintLen64 + len(key)
	if cap(c)-len(c) < need {
		// Grow by an eighth, as a pack does: many small sets then
		// hold about their keys' bytes.
		n := len(c) + need
		nc := append([]byte(nil), make([]byte, n+n/8)...)
		d.arena += int64(cap(nc) - cap(c))
		c = nc[:copy(nc, c)]
	}
	d.offs[i] = uint32(len(c))
	c = binary.AppendUvarint(c, uint64(len(key)))
	d.chunks[ci] = append(c, key...)
}

// dropKey forgets slot i's key.
func (d *Dict[V]) dropKey(i uint32) {
	if d.offs[i] == offLong {
		d.arena -= int64(len(d.long[i])) + 32
		delete(d.long, i)
		d.offs[i] = offFree
		return
	}
	ci := i >> chunkShift
	k := d.Key(i)
	d.dead[ci] += uint32(len(k) + uvarintLen(len(k)))
	d.offs[i] = offFree
	if c := d.chunks[ci]; d.dead[ci] > 64 && int(d.dead[ci]) > len(c)/2 {
		d.rewriteChunk(ci)
	}
}

func uvarintLen(n int) int { return (bits.Len64(uint64(n)|1) + 6) / 7 }

// rewriteChunk copies chunk ci's live keys into a new allocation.
func (d *Dict[V]) rewriteChunk(ci uint32) {
	old := d.chunks[ci]
	n := len(old) - int(d.dead[ci])
	c := append([]byte(nil), make([]byte, n+n/8)...)[:0]
	lo := ci << chunkShift
	hi := min(lo+1<<chunkShift, uint32(len(d.offs)))
	for i := lo; i < hi; i++ {
		if off := d.offs[i]; off != offFree && off != offLong {
			k := d.Key(i)
			d.offs[i] = uint32(len(c))
			c = binary.AppendUvarint(c, uint64(len(k)))
			c = append(c, k...)
		}
	}
	d.arena += int64(cap(c) - cap(old))
	d.chunks[ci], d.dead[ci] = c, 0
}

func (d *Dict[V]) place(h uint32, i uint32) {
	mask := uint32(len(d.cells) - 1)
	tomb := d.tomb()
	for pos := h & mask; ; pos = (pos + 1) & mask {
		if cell := d.cells[pos]; cell == 0 || cell == tomb {
			if cell == tomb {
				d.tombs--
			}
			d.cells[pos] = d.tag(h) | (i + 1)
			return
		}
	}
}

// rebuild makes the cells afresh for the live entries at a load of at
// most 3/4 (of at least 3/8 when it grows), hashing their keys again.
func (d *Dict[V]) rebuild() {
	size := 8
	for size*3 < d.used*4+4 {
		size *= 2
	}
	if size < len(d.cells) && d.used*8 > len(d.cells)*3 {
		size = len(d.cells) // only tombstones to clear
	}
	d.sb = uint8(min(32, bits.Len(uint(max(len(d.offs)+2, 2*size)))))
	if cap(d.cells) >= size && cap(d.cells) <= 2*size {
		d.cells = d.cells[:size]
		clear(d.cells)
	} else {
		d.cells = make([]uint32, size)
	}
	d.tombs = 0
	for i := range d.offs {
		if d.live(uint32(i)) {
			d.place(hashString(d.Key(uint32(i))), uint32(i))
		}
	}
}

// Delete removes key and reports whether it was there.
func (d *Dict[V]) Delete(key []byte) bool {
	return d.DeleteMoving(key, nil)
}

// DeleteMoving is Delete; when the deletion compacts the dict, moved is
// called once after with old slot -> new slot for every slot that was
// live (entries only move down).
func (d *Dict[V]) DeleteMoving(key []byte, moved func(remap []uint32)) bool {
	i, ok := d.Find(key)
	if !ok {
		return false
	}
	h := hash(key)
	mask := uint32(len(d.cells) - 1)
	want := d.tag(h) | (i + 1)
	pos := h & mask
	for d.cells[pos] != want {
		pos = (pos + 1) & mask
	}
	tomb := d.tomb()
	d.cells[pos] = tomb
	d.tombs++
	for d.cells[(pos+1)&mask] == 0 && d.cells[pos] == tomb {
		d.cells[pos] = 0
		d.tombs--
		pos = (pos - 1) & mask
	}
	d.keys -= int64(len(key))
	d.dropKey(i)
	var zero V
	d.vals[i] = zero
	d.used--
	d.free = append(d.free, i)
	switch {
	case d.used == 0:
		*d = Dict[V]{}
	case len(d.offs) > 32 && d.used < len(d.offs)/4:
		d.compact(moved)
	}
	return true
}

// compact moves the live entries to the lowest slots, in their order (so
// each moves down or stays), and rebuilds the chunks and cells.
func (d *Dict[V]) compact(moved func(remap []uint32)) {
	var remap []uint32
	if moved != nil {
		remap = make([]uint32, len(d.offs))
	}
	old := *d
	*d = Dict[V]{
		offs: make([]uint32, 0, d.used*2),
		vals: make([]V, 0, d.used*2),
		keys: old.keys,
	}
	for i := range old.offs {
		if !old.live(uint32(i)) {
			continue
		}
		j := uint32(len(d.offs))
		if remap != nil {
			remap[i] = j
		}
		d.offs = append(d.offs, offFree)
		d.vals = append(d.vals, old.vals[i])
		k := old.Key(uint32(i))
		d.writeKey(j, unsafe.Slice(unsafe.StringData(k), len(k)))
		d.used++
	}
	d.rebuild()
	if moved != nil {
		moved(remap)
	}
}

// Scan visits up to count slots from cursor (0 starts a scan) downwards,
// calling f for each live entry, and returns the cursor to continue from,
// 0 when the scan is complete. A cursor is 1 + the next slot to visit.
func (d *Dict[V]) Scan(cursor uint64, count int, f func(key string, val V)) uint64 {
	i := len(d.offs) - 1
	if cursor > 0 && cursor-1 < uint64(i) {
		i = int(cursor - 1)
	}
	for ; i >= 0 && count > 0; i-- {
		if d.live(uint32(i)) {
			f(d.Key(uint32(i)), d.vals[i])
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
	for i := range d.offs {
		if d.live(uint32(i)) && !f(d.Key(uint32(i)), d.vals[i]) {
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
		if i := uint32(r(len(d.offs))); d.live(i) {
			return d.Key(i), d.vals[i]
		}
	}
}

func (d *Dict[V]) arenaOfChunks() int64 {
	var n int64
	for _, c := range d.chunks {
		n += int64(cap(c))
	}
	return n
}

// Clone returns a copy of d, with the same slots.
func (d *Dict[V]) Clone() *Dict[V] {
	c := *d
	c.offs = append([]uint32(nil), d.offs...)
	c.vals = append([]V(nil), d.vals...)
	c.free = append([]uint32(nil), d.free...)
	c.cells = append([]uint32(nil), d.cells...)
	c.dead = append([]uint32(nil), d.dead...)
	c.chunks = make([][]byte, len(d.chunks))
	c.arena = 0
	for i, ch := range d.chunks {
		c.chunks[i] = append([]byte(nil), ch...)
		c.arena += int64(cap(c.chunks[i]))
	}
	if d.long != nil {
		c.arena += d.arena - d.arenaOfChunks()
		c.long = make(map[uint32]string, len(d.long))
		for k, v := range d.long {
			c.long[k] = v
		}
	}
	return &c
}
