package keyspace

// The few functions every command reads and writes keys through. They keep
// the deadline index, the TTL count and WATCH in step with the data, so no
// command has to.

// expired reports whether e's deadline has passed at now (Redis's
// keyIsExpired: now > when).
func (e *entry) expired(now int64) bool { return e.expireAt != 0 && now > e.expireAt }

// find returns the live entry for key in c's database, deleting it first if
// its deadline has passed (lazy expiry), and records the access for
// eviction (lookupKey). The pointer is valid until the next insertion into
// that database. It is the lookup of commands that may change the key: a
// snapshot being taken copies the key out first (copy-on-write,
// snapshot.go).
func (k *Keyspace) find(c *Ctx, key []byte) (*entry, uint32, bool) {
	e, i, ok := k.look(c, key)
	if ok {
		k.dbs[c.DB].before(i)
	}
	return e, i, ok
}

// look is find for readers: the access is recorded, nothing is copied.
func (k *Keyspace) look(c *Ctx, key []byte) (*entry, uint32, bool) {
	e, i, ok := k.peek(c, key)
	if ok {
		k.access(e, c.Now)
	}
	return e, i, ok
}

// peek is find for the lookups Redis flags LOOKUP_NOTOUCH (TTL, EXISTS,
// TYPE, OBJECT): the key's access data stays as it was.
func (k *Keyspace) peek(c *Ctx, key []byte) (*entry, uint32, bool) {
	d := &k.dbs[c.DB]
	i, ok := d.lookup(key)
	if !ok {
		return nil, 0, false
	}
	e := &d.slots[i]
	if e.expired(c.Now) {
		k.expireNow(c.DB, i)
		return nil, 0, false
	}
	return e, i, true
}

// expireNow removes the key in slot i of database dbi because its deadline
// has passed (db.c:deleteExpiredKeyAndPropagate), lazily or actively.
func (k *Keyspace) expireNow(dbi int, i uint32) {
	key := k.dbs[dbi].slots[i].key() // stays valid: the bytes outlive the slot
	k.expiring = true
	k.remove(dbi, i)
	k.expiring = false
	if k.tracker != nil {
		k.tracker.Expired(dbi, key)
	}
	k.stats.Expired++
	k.notifyString(NotifyExpired, "expired", key, dbi)
}

// read is find for commands that read a value: it counts keyspace hits and
// misses for INFO and reports a miss as a keymiss event, as Redis's
// lookupKeyRead does.
func (k *Keyspace) read(c *Ctx, key []byte) (*entry, uint32, bool) {
	e, i, ok := k.look(c, key)
	k.counted(c, key, ok)
	return e, i, ok
}

// readNoTouch is read without the access update (LOOKUP_NOTOUCH).
func (k *Keyspace) readNoTouch(c *Ctx, key []byte) (*entry, uint32, bool) {
	e, i, ok := k.peek(c, key)
	k.counted(c, key, ok)
	return e, i, ok
}

// counted counts a read's hit or miss and reports a miss as a keymiss
// event.
func (k *Keyspace) counted(c *Ctx, key []byte, ok bool) {
	if ok {
		k.stats.Hits++
	} else {
		k.stats.Misses++
		k.notify(NotifyKeyMiss, "keymiss", key, c.DB)
	}
}

// exists reports whether key is live in c's database. Like read, it counts
// a hit or a miss; it does not touch the key (EXISTS is LOOKUP_NOTOUCH).
func (k *Keyspace) exists(c *Ctx, key []byte) bool {
	_, _, ok := k.readNoTouch(c, key)
	return ok
}

// store sets key to val in c's database. Unless keepTTL is set, any deadline
// is removed, as Redis's setKey does.
func (k *Keyspace) store(c *Ctx, key, val []byte, keepTTL bool) uint32 {
	_, i, ok := k.find(c, key)
	return k.put(c, i, ok, key, val, keepTTL)
}

// put is store for a caller that has already looked key up: found says
// whether slot i holds it. It returns the key's slot.
func (k *Keyspace) put(c *Ctx, i uint32, found bool, key, val []byte, keepTTL bool) uint32 {
	d := &k.dbs[c.DB]
	if !found {
		i = d.insert(key, val)
		k.born(c.DB, i, c.Now)
		k.notify(NotifyNew, "new", key, c.DB)
	} else {
		if d.slots[i].kindOf() == kindStream {
			k.signalReady(c.DB, key, kindStream) // dbOverwrite
		}
		d.setVal(i, val)
		if !keepTTL {
			k.clearExpire(c.DB, &d.slots[i])
		}
	}
	k.touch(c.DB, key)
	return i
}

// putKV is put for a value already laid out with its key in kv
// (newKVZero), which becomes the key's array; any deadline is removed.
func (k *Keyspace) putKV(c *Ctx, key, kv []byte) {
	d := &k.dbs[c.DB]
	if _, i, found := k.find(c, key); found {
		d.replaceKV(i, kv)
		k.clearExpire(c.DB, &d.slots[i])
	} else {
		k.born(c.DB, d.insertKV(key, kv), c.Now)
		k.notify(NotifyNew, "new", key, c.DB)
	}
	k.touch(c.DB, key)
}

// setExpire gives the key in slot i the deadline at (Unix ms, > 0).
func (k *Keyspace) setExpire(dbi int, i uint32, at int64) {
	k.dbs[dbi].before(i)
	e := &k.dbs[dbi].slots[i]
	if e.expireAt == 0 {
		k.dbs[dbi].expires++
		k.withTTL++
	}
	e.expireAt = at
	k.index.Push(at, dbi, i)
	k.touchString(dbi, e.key())
}

// clearExpire removes e's deadline and reports whether it had one. Its item
// in the index goes stale and is dropped when popped or compacted.
func (k *Keyspace) clearExpire(dbi int, e *entry) bool {
	if e.expireAt == 0 {
		return false
	}
	d := &k.dbs[dbi]
	d.before(d.slotOf(e))
	e.expireAt = 0
	k.dbs[dbi].expires--
	k.withTTL--
	return true
}

// remove deletes the key in slot i of database dbi.
func (k *Keyspace) remove(dbi int, i uint32) {
	d := &k.dbs[dbi]
	key := d.slots[i].key() // stays valid: the bytes outlive the slot
	if d.slots[i].kindOf() == kindStream {
		k.signalReady(dbi, []byte(key), kindStream) // dbGenericDelete
	}
	if d.slots[i].expireAt != 0 {
		k.withTTL--
	}
	d.delete(i)
	k.touchString(dbi, key)
}

// del deletes key from c's database if it is live and reports whether it
// was.
func (k *Keyspace) del(c *Ctx, key []byte) bool {
	_, i, ok := k.find(c, key)
	if ok {
		k.remove(c.DB, i)
	}
	return ok
}

// flush empties database dbi.
func (k *Keyspace) flush(dbi int) {
	d := &k.dbs[dbi]
	k.signalLostStreams(dbi, -1)
	k.touchReplaced(dbi, -1, 0)
	if k.tracker != nil {
		k.tracker.Flushed(dbi)
	}
	k.changes += int64(d.used)
	k.withTTL -= d.expires
	d.init(&k.mem)
	if k.withTTL == 0 {
		k.index.Reset()
	}
}
