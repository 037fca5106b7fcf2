package keyspace

import "unsafe"

// Watch is one connection's WATCHed keys: optimistic locking for MULTI/EXEC.
// Any write to a watched key, its deletion or its expiry makes the watch
// dirty, and EXEC then aborts (multi.c). The zero Watch watches nothing.
type Watch struct {
	dirty bool
	keys  []*watched
}

type watched struct {
	w   *Watch
	db  int
	key string
	// expired is set when the key was already logically expired at WATCH
	// time: its later removal is then no change (multi.c:touchWatchedKey).
	expired bool
}

type watchKey struct {
	db  int
	key string
}

// watchers indexes every Watch by key, so a write finds who to tell in one
// map lookup, and costs nothing when nobody watches.
type watchers struct {
	byKey map[watchKey][]*watched
}

func (ws *watchers) active() bool { return len(ws.byKey) > 0 }

// Watching reports whether w watches any key.
func (w *Watch) Watching() bool { return len(w.keys) > 0 || w.dirty }

// WatchKey adds key in c's database to w (WATCH).
func (k *Keyspace) WatchKey(c *Ctx, w *Watch, key []byte) {
	wk := watchKey{c.DB, string(key)}
	for _, x := range w.keys {
		if x.db == wk.db && x.key == wk.key {
			return
		}
	}
	x := &watched{w: w, db: c.DB, key: wk.key}
	d := &k.dbs[c.DB]
	if i, ok := d.lookup(key); ok && d.slots[i].expired(c.Now) {
		x.expired = true
	}
	if k.watches.byKey == nil {
		k.watches.byKey = make(map[watchKey][]*watched)
	}
	k.watches.byKey[wk] = append(k.watches.byKey[wk], x)
	w.keys = append(w.keys, x)
}

// Unwatch forgets all of w's keys and its dirty mark (UNWATCH, EXEC,
// DISCARD, RESET, and a closed connection).
func (k *Keyspace) Unwatch(w *Watch) {
	for _, x := range w.keys {
		wk := watchKey{x.db, x.key}
		list := k.watches.byKey[wk]
		for i, y := range list {
			if y == x {
				list[i] = list[len(list)-1]
				list[len(list)-1] = nil
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			delete(k.watches.byKey, wk)
		} else {
			k.watches.byKey[wk] = list
		}
	}
	w.keys = nil
	w.dirty = false
}

// WatchFailed reports whether EXEC must abort: a watched key was written,
// deleted or expired since WATCH (multi.c:isWatchedKeyExpired).
func (k *Keyspace) WatchFailed(c *Ctx, w *Watch) bool {
	if w.dirty {
		return true
	}
	for _, x := range w.keys {
		if x.expired {
			continue
		}
		d := &k.dbs[x.db]
		if i, ok := d.lookupString(x.key); ok && d.slots[i].expired(c.Now) {
			return true
		}
	}
	return false
}

// touch is Redis's signalModifiedKey: key in database dbi has changed
// (written, deleted, expired), so the watches on it are dirty and the
// modified hook hears of it. Without watches or a hook it costs two tests.
func (k *Keyspace) touch(dbi int, key []byte) {
	k.changes++
	if k.tracker != nil {
		k.tracked(dbi, string(key))
	}
	if k.watches.active() {
		k.touchWatches(dbi, string(key))
	}
	if k.modified != nil {
		k.modified(key)
	}
}

// touchString is touch for a key held as a string (an entry's own key
// bytes, which outlive the entry).
func (k *Keyspace) touchString(dbi int, key string) {
	k.changes++
	k.tracked(dbi, key)
	k.touchWatches(dbi, key)
	if k.modified != nil {
		k.modified(unsafe.Slice(unsafe.StringData(key), len(key)))
	}
}

// SetModified sets the function told of every changed key, at the moment
// Redis calls signalModifiedKey (client-side caching's invalidation hook),
// or none (nil). key is valid only until fn returns; fn runs on the owner
// goroutine, inside the command or expiry that made the change, and must
// not change the keyspace. Owner goroutine only.
func (k *Keyspace) SetModified(fn func(key []byte)) { k.modified = fn }

// touchWatches marks every watch on key dirty (multi.c:touchWatchedKey).
func (k *Keyspace) touchWatches(dbi int, key string) {
	if !k.watches.active() {
		return
	}
	d := &k.dbs[dbi]
	for _, x := range k.watches.byKey[watchKey{dbi, key}] {
		if x.expired {
			// Removing a key that had already expired when watched
			// changes nothing the client could have seen.
			if _, present := d.lookupString(key); !present {
				x.expired = false
				continue
			}
		}
		x.w.dirty = true
	}
}

// touchReplaced marks dirty the watches on keys of database dbi whose
// content is about to change because the database is emptied (with < 0:
// FLUSHDB, FLUSHALL) or replaced by database with (SWAPDB), as
// multi.c:touchAllWatchedKeysInDb: a key present before or after counts,
// except that an expired key gone or still expired is no change, and an
// absent key replaced by an expired one is watched as expired.
func (k *Keyspace) touchReplaced(dbi, with int, now int64) {
	if !k.watches.active() {
		return
	}
	d := &k.dbs[dbi]
	for wk, list := range k.watches.byKey {
		if wk.db != dbi {
			continue
		}
		_, before := d.lookupString(wk.key)
		after, expiredAfter := false, false
		if with >= 0 {
			var i uint32
			w := &k.dbs[with]
			i, after = w.lookupString(wk.key)
			expiredAfter = after && w.slots[i].expired(now)
		}
		if !before && !after {
			continue
		}
		for _, x := range list {
			switch {
			case x.expired && !after:
				x.expired = false
				continue
			case x.expired && expiredAfter:
				continue
			case !x.expired && !before && expiredAfter:
				x.expired = true
				continue
			}
			x.w.dirty = true
		}
	}
}
