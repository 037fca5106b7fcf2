package keyspace

import (
	"encoding/binary"
	"hash/maphash"
	"sync/atomic"
	"unsafe"
)

// db is one numbered database.
//
// Entries live by value in one slice (slots), and a small open-addressing
// table of 8-byte cells finds a key's slot. A key costs one allocation, its
// key and value bytes together; the table, the slots and the deadline index
// hold no other per-key object and no string header. That keeps a lock key
// near 110 bytes of heap (a Go map[string] would add some 40) and gives the
// garbage collector one pointer per key to follow. The slot number doubles
// as a SCAN cursor that stays valid while keys come and go.
type db struct {
	// mem is the keyspace's count of bytes its databases hold (shared by
	// all of them, read by other goroutines); bytes is this database's
	// share of it.
	mem   *atomic.Int64
	bytes int64

	slots   []entry
	free    []uint32 // slots of deleted keys, reused first
	table   []uint64 // hash cells, see cell; len is a power of two or 0
	used    int      // live keys
	dead    int      // tombstone cells
	expires int      // keys with a deadline, for INFO keyspace
	seed    maphash.Seed
	// snap is the snapshot's walk of this database while one runs and has
	// not finished with it (snapshot.go); the writers below call its hooks.
	snap *segment
}

// entry is one key. Its array holds the key's access data for eviction
// (metaLen bytes, see meta), the key's length (a uvarint), the key, then
// the value of a string key (a key of another type keeps its value in
// obj); p is nil for a free slot. The key bytes never change while the
// entry lives, so strings made from them stay valid; only the value part is
// overwritten.
type entry struct {
	p        *byte   // first byte of the array
	n, c     uint32  // length and capacity of the array
	expireAt int64   // Unix ms; 0 when the key has no TTL
	obj      *object // the value when it is not a string (object.go); nil for a string
}

func (e *entry) kv() []byte { return unsafe.Slice(e.p, e.c)[:e.n] }

// metaLen is the bytes at the start of every array that hold the key's
// 24 bits of access data (Redis's robj.lru, evict.go). In the array they
// cost 3 bytes, often none at all once the allocation is rounded to its
// size class; a field in entry would cost 8 per key (the struct is
// 8-aligned).
const metaLen = 3

// meta returns the key's access data.
func (e *entry) meta() uint32 {
	b := unsafe.Slice(e.p, metaLen)
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
}

// setMeta stores the key's access data (its low 24 bits).
func (e *entry) setMeta(m uint32) {
	b := unsafe.Slice(e.p, metaLen)
	b[0], b[1], b[2] = byte(m), byte(m>>8), byte(m>>16)
}

func (e *entry) setKV(kv []byte) {
	e.p, e.n, e.c = unsafe.SliceData(kv), uint32(len(kv)), uint32(cap(kv))
}

// valueAt returns the offset of the value in the array and the key's length.
func (e *entry) valueAt() (off, klen int) {
	n, w := binary.Uvarint(e.kv()[metaLen:])
	return metaLen + w + int(n), int(n)
}

// key returns the key, sharing the entry's bytes.
func (e *entry) key() string {
	off, klen := e.valueAt()
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(e.p), off-klen)), klen)
}

// val returns the value. It aliases the entry: copy it before the entry
// changes.
func (e *entry) val() []byte {
	off, _ := e.valueAt()
	return e.kv()[off:]
}

// live reports whether the slot holds a key.
func (e *entry) live() bool { return e.p != nil }

// A cell of the table is empty (0), a tombstone, or a key's slot number
// plus one in the low 32 bits and its 32-bit hash in the high ones, so most
// probes that do not match are rejected without touching the entry.
const tombstone = 1<<64 - 1

func cellOf(h uint32, i uint32) uint64 { return uint64(h)<<32 | uint64(i+1) }

func (d *db) init(mem *atomic.Int64) {
	d.retire()
	mem.Add(-d.bytes)
	*d = db{seed: maphash.MakeSeed(), mem: mem}
}

// Per-key bookkeeping outside the key's own array: its slot and, at the
// table's load of at most 3/4, about two cells.
const (
	slotBytes = int64(unsafe.Sizeof(entry{}))
	cellBytes = 8
)

// account adds delta bytes to what the database holds.
func (d *db) account(delta int64) {
	d.bytes += delta
	d.mem.Add(delta)
}

// size is the number of keys, expired ones not yet removed included (as
// Redis's DBSIZE).
func (d *db) size() int { return d.used }

func (d *db) hash(key []byte) uint32 { return uint32(maphash.Bytes(d.seed, key)) }

// lookup returns the slot of key, ignoring deadlines.
func (d *db) lookup(key []byte) (uint32, bool) {
	if d.used == 0 {
		return 0, false
	}
	h := d.hash(key)
	mask := uint32(len(d.table) - 1)
	for pos := h & mask; ; pos = (pos + 1) & mask {
		cell := d.table[pos]
		switch {
		case cell == 0:
			return 0, false
		case cell != tombstone && uint32(cell>>32) == h:
			i := uint32(cell) - 1
			if d.slots[i].key() == string(key) {
				return i, true
			}
		}
	}
}

// lookupString is lookup for a key held as a string.
func (d *db) lookupString(key string) (uint32, bool) {
	return d.lookup(unsafe.Slice(unsafe.StringData(key), len(key)))
}

// newKV lays out key and val in one new array with room for nothing more,
// its access data zero.
func newKV(key, val []byte) []byte {
	var hdr [metaLen + binary.MaxVarintLen64]byte
	w := metaLen + binary.PutUvarint(hdr[metaLen:], uint64(len(key)))
	kv := make([]byte, 0, w+len(key)+len(val))
	kv = append(kv, hdr[:w]...)
	kv = append(kv, key...)
	return append(kv, val...)
}

// insert adds a key that is not present and returns its slot.
func (d *db) insert(key []byte, val []byte) uint32 {
	return d.insertKV(key, newKV(key, val))
}

// insertZero adds a key that is not present with a value of n zero bytes
// (SETBIT far past the end of a missing key), made in place.
func (d *db) insertZero(key []byte, n int) uint32 {
	kv, _ := newKVZero(key, n)
	return d.insertKV(key, kv)
}

// newKVZero lays out key and a value of n zero bytes in one new array,
// and returns it and where the value starts: a command that computes a
// large value (BITOP) writes it there, and the array becomes the key's
// (putKV), with no copy.
func newKVZero(key []byte, n int) ([]byte, int) {
	var hdr [metaLen + binary.MaxVarintLen64]byte
	w := metaLen + binary.PutUvarint(hdr[metaLen:], uint64(len(key)))
	kv := make([]byte, w+len(key)+n)
	copy(kv[copy(kv, hdr[:w]):], key)
	return kv, w + len(key)
}

// replaceKV makes kv, an array newKVZero laid out for the same key, the
// array of slot i, dropping the key's old value of whatever type.
func (d *db) replaceKV(i uint32, kv []byte) {
	d.before(i)
	e := &d.slots[i]
	if e.obj != nil {
		d.account(-e.obj.counted)
		e.obj = nil
	}
	old, meta := e.c, e.meta()
	e.setKV(kv)
	e.setMeta(meta)
	d.account(int64(e.c) - int64(old))
}

// insertKV adds a key that is not present, given its array, and returns
// its slot.
func (d *db) insertKV(key, kv []byte) uint32 {
	var e entry
	e.setKV(kv)
	d.account(int64(e.c))
	var i uint32
	if n := len(d.free); n > 0 {
		i = d.free[n-1]
		d.free = d.free[:n-1]
		d.slots[i] = e
	} else {
		i = uint32(len(d.slots))
		old := cap(d.slots)
		d.slots = append(d.slots, e)
		d.account(int64(cap(d.slots)-old) * slotBytes)
	}
	if (d.used+d.dead+1)*4 > len(d.table)*3 {
		d.resize()
	}
	d.place(d.hash(key), i)
	d.used++
	d.inserted(i)
	return i
}

// place puts slot i, whose key hashes to h, in the first free cell.
func (d *db) place(h uint32, i uint32) {
	mask := uint32(len(d.table) - 1)
	for pos := h & mask; ; pos = (pos + 1) & mask {
		if cell := d.table[pos]; cell == 0 || cell == tombstone {
			if cell == tombstone {
				d.dead--
			}
			d.table[pos] = cellOf(h, i)
			return
		}
	}
}

// resize rebuilds the table for the live keys at a load of at most 3/8,
// dropping tombstones; it grows or shrinks it. Cells carry their hash, so
// no key is rehashed.
func (d *db) resize() {
	size := 8
	for size*3 < (d.used+1)*8 {
		size *= 2
	}
	old := d.table
	d.table = make([]uint64, size)
	d.account(int64(size-len(old)) * cellBytes)
	d.dead = 0
	for _, cell := range old {
		if cell != 0 && cell != tombstone {
			d.place(uint32(cell>>32), uint32(cell)-1)
		}
	}
}

// setVal replaces the value in slot i. The array is reused when the new
// value fits without wasting much, which makes overwriting a key with a
// value of similar size allocation-free.
func (d *db) setVal(i uint32, val []byte) {
	d.before(i)
	e := &d.slots[i]
	if e.obj != nil {
		d.account(-e.obj.counted)
		e.obj = nil
	}
	off, klen := e.valueAt()
	if need := off + len(val); int(e.c) >= need && int(e.c) <= 2*need+32 {
		e.setKV(append(e.kv()[:off], val...))
		return
	}
	old, meta := e.c, e.meta()
	e.setKV(newKV(e.kv()[off-klen:off], val))
	e.setMeta(meta)
	d.account(int64(e.c) - int64(old))
}

// appendVal appends more to the value in slot i (APPEND).
func (d *db) appendVal(i uint32, more []byte) {
	d.before(i)
	e := &d.slots[i]
	old := e.c
	e.setKV(append(e.kv(), more...))
	d.account(int64(e.c) - int64(old))
}

// growZero makes the value in slot i at least n bytes long, padding it
// with zero bytes, and returns it (aliasing the entry: SETBIT and BITFIELD
// write into it in place). A longer array grows as Redis's sdsgrowzero
// grows a string (sdsMakeRoomFor's greedy rule: twice what is needed below
// 1 MiB, 1 MiB more above), so setting bits one after another past the end
// copies the bitmap a logarithmic number of times, and never holds more
// than Redis would.
func (d *db) growZero(i uint32, n int) []byte {
	d.before(i)
	e := &d.slots[i]
	off, _ := e.valueAt()
	if have := int(e.n) - off; have >= n {
		return e.kv()[off:]
	}
	need := off + n
	if need > int(e.c) {
		size := need
		if size < 1<<20 {
			size *= 2
		} else {
			size += 1 << 20
		}
		size = min(size, maxArray)
		kv := make([]byte, e.n, size)
		copy(kv, e.kv())
		old := e.c
		e.setKV(kv)
		d.account(int64(e.c) - int64(old))
	}
	kv := e.kv()
	kv = kv[:need]
	clear(kv[e.n:])
	e.setKV(kv)
	return kv[off:]
}

// maxArray is the most an entry's array can hold (its length and capacity
// are 32-bit).
const maxArray = 1<<32 - 1

// delete removes the key in slot i.
func (d *db) delete(i uint32) {
	d.before(i)
	e := &d.slots[i]
	kv := e.kv()
	off, klen := e.valueAt()
	h := d.hash(kv[off-klen : off])
	mask := uint32(len(d.table) - 1)
	pos := h & mask
	for d.table[pos] != cellOf(h, i) {
		pos = (pos + 1) & mask
	}
	d.table[pos] = tombstone
	d.dead++
	// A tombstone followed by an empty cell ends no probe sequence: clear
	// it, and the ones before it, so a lock taken and released over and
	// over never fills the table with tombstones.
	for d.table[(pos+1)&mask] == 0 && d.table[pos] == tombstone {
		d.table[pos] = 0
		d.dead--
		pos = (pos - 1) & mask
	}
	if e.expireAt != 0 {
		d.expires--
	}
	d.account(-int64(e.c))
	if e.obj != nil {
		d.account(-e.obj.counted)
	}
	*e = entry{}
	d.used--
	if d.used == 0 && len(d.slots) > 1024 {
		// Once a large database is empty, start afresh to give the memory
		// back. Small ones keep their arrays, so a lone lock taken and
		// released does not allocate every time.
		d.init(d.mem)
		return
	}
	d.free = append(d.free, i)
}

// sparse reports whether fewer than a quarter of the slots hold a key, so
// that compact is due: a random slot would then rarely hold one (RANDOMKEY)
// and a scan would walk mostly free slots. Small databases never count.
func (d *db) sparse() bool { return len(d.slots) > 64 && d.used < len(d.slots)/4 }

// noSlot is where compact maps a free slot.
const noSlot = 1<<32 - 1

// compact moves the keys to the lowest slots, keeping their order (so each
// moves down or stays, which keeps SCAN's guarantee: it walks the slots
// downwards), gives back the slots and table the deleted keys left, and
// returns old slot -> new slot (noSlot for a free one). The caller
// renumbers whatever else holds slot numbers.
func (d *db) compact() []uint32 {
	remap := make([]uint32, len(d.slots))
	slots := make([]entry, d.used, d.used+d.used/4+8)
	n := uint32(0)
	for i := range d.slots {
		if !d.slots[i].live() {
			remap[i] = noSlot
			continue
		}
		remap[i] = n
		slots[n] = d.slots[i]
		n++
	}
	d.account(int64(cap(slots)-cap(d.slots)) * slotBytes)
	d.slots, d.free = slots, nil
	for j, cell := range d.table {
		if cell != 0 && cell != tombstone {
			d.table[j] = cellOf(uint32(cell>>32), remap[uint32(cell)-1])
		}
	}
	d.resize()
	return remap
}
