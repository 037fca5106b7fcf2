package keyspace

import (
	"sort"
	"time"
)

// Direct access for embedders and tests: read and change data without a
// client connection. A change is notified as the command it stands for
// (SET, DEL) would be. Like commands, these run on the owner goroutine only;
// the server hands each to it (edge.Owner.Do).

func (k *Keyspace) direct(db int) *Ctx { return &Ctx{DB: db, Now: k.Now()} }

// Value returns key's value in database db, if it is live.
func (k *Keyspace) Value(db int, key string) (string, bool) {
	e, _, ok := k.find(k.direct(db), []byte(key))
	if !ok || e.obj != nil {
		return "", false
	}
	return string(e.val()), true
}

// SetValue sets key to val in database db, with a time to live when ttl > 0
// (none otherwise), as SET key val [PX ttl] does.
func (k *Keyspace) SetValue(db int, key, val string, ttl time.Duration) {
	c := k.direct(db)
	i := k.store(c, []byte(key), []byte(val), false)
	k.notify(NotifyString, "set", []byte(key), db)
	if ttl > 0 {
		k.setExpire(db, i, c.Now+max(ttl.Milliseconds(), 1))
		k.notify(NotifyGeneric, "expire", []byte(key), db)
	}
}

// TTL returns key's remaining time to live in database db: 0 and true for
// a key without one, false for a missing key.
func (k *Keyspace) TTL(db int, key string) (time.Duration, bool) {
	c := k.direct(db)
	e, _, ok := k.find(c, []byte(key))
	if !ok {
		return 0, false
	}
	if e.expireAt == 0 {
		return 0, true
	}
	return time.Duration(e.expireAt-c.Now) * time.Millisecond, true
}

// Delete removes key from database db and reports whether it was there.
func (k *Keyspace) Delete(db int, key string) bool {
	ok := k.del(k.direct(db), []byte(key))
	if ok {
		k.notify(NotifyGeneric, "del", []byte(key), db)
	}
	return ok
}

// Keys returns the live keys of database db, sorted.
func (k *Keyspace) Keys(db int) []string {
	c := k.direct(db)
	var keys []string
	for i := range k.dbs[db].slots {
		e := &k.dbs[db].slots[i]
		if e.live() && !e.expired(c.Now) {
			keys = append(keys, e.key())
		}
	}
	sort.Strings(keys)
	return keys
}

// FlushAll empties every database.
func (k *Keyspace) FlushAll() {
	for i := range k.dbs {
		k.flush(i)
	}
}

// DBInfo is one database's line in INFO keyspace.
type DBInfo struct {
	Keys, Expires int
}

// Info returns the key and TTL counts of every database.
func (k *Keyspace) Info() []DBInfo {
	out := make([]DBInfo, len(k.dbs))
	for i := range k.dbs {
		out[i] = DBInfo{Keys: k.dbs[i].size(), Expires: k.dbs[i].expires}
	}
	return out
}

// Peek reads key in database db as it stands at the instant now (Unix ms)
// without touching anything: no lazy expiry, no statistics, no event, so
// that an observer (the lock doctor) changes nothing by looking. val is
// the first limit bytes of the value; str is false for a key that is not
// a string (val is then empty); deadline is 0 for a key without a TTL.
func (k *Keyspace) Peek(db int, key string, now int64, limit int) (val string, str, ok bool, deadline int64) {
	d := &k.dbs[db]
	i, found := d.lookupString(key)
	if !found {
		return "", false, false, 0
	}
	e := &d.slots[i]
	if e.expired(now) {
		return "", false, false, 0
	}
	if e.obj != nil {
		return "", false, true, e.expireAt
	}
	v := e.val()
	return string(v[:min(len(v), limit)]), true, true, e.expireAt
}
