package keyspace

// db is one numbered database.
//
// Entries live by value in one slice (slots) and the map only translates a
// key to its slot: there is no heap object per key beyond the key and value
// bytes, a value is overwritten in place when it fits, and the slot index
// doubles as a SCAN cursor that stays valid while keys come and go.
type db struct {
	keys    map[string]uint32
	slots   []entry
	free    []uint32 // slots of deleted keys, reused first
	expires int      // keys with a deadline, for INFO keyspace
	peak    int      // most keys held since the map was last made
}

// entry is one key. A free slot has a nil val; a live one never does, even
// for the empty string.
type entry struct {
	key      string
	val      []byte
	expireAt int64 // Unix ms; 0 when the key has no TTL
}

func (d *db) init() {
	d.keys = make(map[string]uint32)
	d.slots = nil
	d.free = nil
	d.expires = 0
	d.peak = 0
}

// size is the number of keys, expired ones not yet removed included (as
// Redis's DBSIZE).
func (d *db) size() int { return len(d.keys) }

// emptyVal is the stored form of the empty string: non-nil, so the slot
// reads as live.
var emptyVal = []byte{}

// storeVal returns v copied into old's array when that is neither too small
// nor wastefully large, else into a new array. Reusing the array makes an
// overwrite of a key with a value of similar size allocation-free.
func storeVal(old, v []byte) []byte {
	if len(v) == 0 {
		return emptyVal
	}
	if cap(old) >= len(v) && cap(old) <= 2*len(v)+32 && len(old) > 0 {
		return append(old[:0], v...)
	}
	return append(make([]byte, 0, len(v)), v...)
}

// lookup returns the slot of key, ignoring deadlines.
func (d *db) lookup(key []byte) (uint32, bool) {
	i, ok := d.keys[string(key)]
	return i, ok
}

// insert adds a key that is not present and returns its slot.
func (d *db) insert(key []byte, val []byte) uint32 {
	k := string(key)
	var i uint32
	if n := len(d.free); n > 0 {
		i = d.free[n-1]
		d.free = d.free[:n-1]
		d.slots[i] = entry{key: k, val: storeVal(nil, val)}
	} else {
		i = uint32(len(d.slots))
		d.slots = append(d.slots, entry{key: k, val: storeVal(nil, val)})
	}
	d.keys[k] = i
	d.peak = max(d.peak, len(d.keys))
	return i
}

// delete removes the key in slot i.
func (d *db) delete(key string, i uint32) {
	delete(d.keys, key)
	if d.slots[i].expireAt != 0 {
		d.expires--
	}
	d.slots[i] = entry{}
	if len(d.keys) == 0 && d.peak > 1024 {
		// A Go map never shrinks: once a large database is empty, start
		// afresh to give the memory back. Small ones keep their map, so a
		// lone lock taken and released does not allocate every time.
		d.init()
		return
	}
	d.free = append(d.free, i)
}
