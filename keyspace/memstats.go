package keyspace

// DBOverhead is one database's share of MEMORY STATS: its key count and
// what its table costs beside the keys and values.
type DBOverhead struct {
	Keys int
	// Main is the slots and hash cells of the key table (Redis's main
	// dict); Expires the deadline index's items for the database's keys
	// with a TTL (Redis's expires dict; minilock keeps the deadline
	// itself in the slot).
	Main, Expires int64
}

// expiryItemBytes is one item of the deadline index (expiry.Index).
const expiryItemBytes = 16

// Overheads returns every database's DBOverhead. Owner goroutine only.
func (k *Keyspace) Overheads() []DBOverhead {
	out := make([]DBOverhead, len(k.dbs))
	for i := range k.dbs {
		d := &k.dbs[i]
		out[i] = DBOverhead{
			Keys:    d.size(),
			Main:    int64(cap(d.slots))*slotBytes + int64(len(d.table))*cellBytes + int64(cap(d.free))*4,
			Expires: int64(d.expires) * expiryItemBytes,
		}
	}
	return out
}
