package keyspace

// KeyMemory returns the bytes key holds in c's database, for MEMORY USAGE:
// its key and value array, its slot and hash cell, and a collection's
// value as the memory count last measured it. Like Redis's MEMORY USAGE
// (a bare dictFind) it neither expires the key nor counts a hit or a miss.
// Owner goroutine only.
func (k *Keyspace) KeyMemory(c *Ctx, key []byte) (int64, bool) {
	d := &k.dbs[c.DB]
	i, ok := d.lookup(key)
	if !ok {
		return 0, false
	}
	e := &d.slots[i]
	n := int64(e.c) + slotBytes + cellBytes
	if e.obj != nil {
		n += e.obj.counted
	}
	return n, true
}
