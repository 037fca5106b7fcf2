package keyspace

import "unsafe"

// A point-in-time snapshot of every database without fork (BGSAVE,
// BGREWRITEAOF): per-key copy-on-write. docs/persistence.md has the design;
// in short:
//
//   - Each database is walked in slot order by a cursor. Slots below the
//     cursor have been visited; a key the walk reaches is copied out
//     (detached: its own array and a deep copy of its value) in bounded
//     steps that the owner runs between commands, and handed to whoever
//     writes the file.
//   - Before the owner changes or deletes a key in a slot the cursor has
//     not reached, it copies the key out first (capture) and marks the slot
//     done. A key created in such a slot after the snapshot began is marked
//     too (born). The walk skips marked slots. So the snapshot holds every
//     key as it was when it began, and the extra memory is the copies of
//     the keys changed during the save plus one step's worth.
//   - Slots keep their numbers while a snapshot runs: compaction waits.
//     A database emptied at once (FLUSHDB, FLUSHALL, a large database
//     whose last key went) hands its old slot array to the snapshot, which
//     walks it as it was; the owner never touches that array again.
//
// Everything here runs on the owner, as the rest of the keyspace: a
// SnapshotItem is the only thing another goroutine reads, and it shares
// nothing with the live data.

// SnapshotItem is one key as it was when the snapshot began, detached from
// the keyspace: any goroutine may read it.
type SnapshotItem struct {
	// DB is the database the key was in.
	DB int
	e  entry
}

// Key is the item's key.
func (it *SnapshotItem) Key() string { return it.e.key() }

// ExpireAt is the key's deadline in Unix ms, 0 for none.
func (it *SnapshotItem) ExpireAt() int64 { return it.e.expireAt }

// Kind is the type of the item's value, as TYPE names it.
func (it *SnapshotItem) Kind() string { return it.e.kindOf().String() }

// size is what the item holds, for the copy-on-write figures.
func (it *SnapshotItem) size() int64 {
	n := int64(it.e.c)
	if it.e.obj != nil {
		n += it.e.obj.counted
	}
	return n
}

// snapshot is the state of the snapshot being taken.
type snapshot struct {
	segs    []*segment
	next    int            // the segment being walked
	pending []SnapshotItem // keys captured before the walk reached them

	// Figures for INFO persistence: keys visited or captured out of
	// total, and the bytes of captured copies not yet handed over
	// (Redis's copy-on-write size) with their peak.
	done, total   int64
	cowNow, cowPk int64
}

// segment is one database's slot array as the snapshot walks it.
type segment struct {
	s      *snapshot
	db     int
	live   *db     // the database, while the array is still its own
	slots  []entry // the array, once the database let go of it (retire)
	cursor uint32  // slots below it are visited
	// skip marks the slots at or past the cursor whose key must not be
	// walked: captured already, or created after the snapshot began.
	skip map[uint32]struct{}
}

func (g *segment) array() []entry {
	if g.live != nil {
		return g.live.slots
	}
	return g.slots
}

// detach copies e out of the keyspace. Its array is cut from *slab when
// slab is not nil and has room: the walk copies a million small keys with
// a few hundred allocations instead of a million, which keeps the garbage
// collector (and so the other clients' latency) out of the save.
func detach(e *entry, slab *[]byte) entry {
	var out entry
	var kv []byte
	if slab != nil && cap(*slab)-len(*slab) >= int(e.n) {
		n := len(*slab)
		*slab = append(*slab, e.kv()...)
		kv = (*slab)[n:len(*slab):len(*slab)]
	} else {
		kv = make([]byte, e.n)
		copy(kv, e.kv())
	}
	out.setKV(kv)
	out.expireAt = e.expireAt
	if e.obj != nil {
		v := e.obj.v.clone()
		out.obj = &object{kind: e.obj.kind, v: v, counted: v.size()}
	}
	return out
}

// capture copies out the key in slot i, about to change or go, unless the
// walk has been there or it was captured or created since the snapshot
// began.
func (g *segment) capture(i uint32) {
	if i < g.cursor {
		return
	}
	if _, ok := g.skip[i]; ok {
		return
	}
	g.skip[i] = struct{}{}
	slots := g.array()
	if int(i) >= len(slots) || !slots[i].live() {
		return
	}
	it := SnapshotItem{DB: g.db, e: detach(&slots[i], nil)}
	g.s.pending = append(g.s.pending, it)
	g.s.done++
	g.s.cowNow += it.size()
	g.s.cowPk = max(g.s.cowPk, g.s.cowNow)
}

// born marks slot i, just given a new key, as not part of the snapshot.
func (g *segment) born(i uint32) {
	if i >= g.cursor {
		g.skip[i] = struct{}{}
	}
}

// The hooks the database's writers call; each is one nil check while no
// snapshot runs.

func (d *db) before(i uint32) {
	if d.snap != nil {
		d.snap.capture(i)
	}
}

func (d *db) inserted(i uint32) {
	if d.snap != nil {
		d.snap.born(i)
	}
}

// retire hands the database's slot array to the snapshot before the
// database starts afresh (init): the walk goes on in the old array, which
// nothing else refers to any more, and the new database is not part of
// the snapshot.
func (d *db) retire() {
	if g := d.snap; g != nil {
		g.slots, g.live = d.slots, nil
	}
}

// slotOf is the slot number of e, an entry of d's array.
func (d *db) slotOf(e *entry) uint32 {
	return uint32((uintptr(unsafe.Pointer(e)) - uintptr(unsafe.Pointer(unsafe.SliceData(d.slots)))) / uintptr(slotBytes))
}

// snapTouch is the hook for a command that changes a key it looked up as
// a reader (read, not find): XREADGROUP's pending lists, PFCOUNT's cache.
func (k *Keyspace) snapTouch(dbi int, i uint32) { k.dbs[dbi].before(i) }

// BeginSnapshot starts a snapshot of every database as they are now, and
// returns each database's key and TTL counts (RDB's RESIZEDB hints). At
// most one runs at a time: it returns false while one does.
func (k *Keyspace) BeginSnapshot() ([]DBInfo, bool) {
	if k.snap != nil {
		return nil, false
	}
	s := &snapshot{}
	info := k.Info()
	for i := range k.dbs {
		g := &segment{s: s, db: i, live: &k.dbs[i], skip: map[uint32]struct{}{}}
		k.dbs[i].snap = g
		s.segs = append(s.segs, g)
		s.total += int64(k.dbs[i].used)
	}
	k.snap = s
	return info, true
}

// Snapshotting reports whether a snapshot is being taken.
func (k *Keyspace) Snapshotting() bool { return k.snap != nil }

// slabBytes is the size of the arrays the walk cuts small keys' copies
// from.
const slabBytes = 32 << 10

// SnapshotStep appends to dst the next keys of the snapshot, the captured
// ones first, until it has added about maxBytes (at least one key), and
// reports whether the snapshot is complete. It costs the owner a bounded
// time per call, so the owner serves commands between calls.
func (k *Keyspace) SnapshotStep(dst []SnapshotItem, maxBytes int64) ([]SnapshotItem, bool) {
	s := k.snap
	if s == nil {
		return dst, true
	}
	var n int64
	for len(s.pending) > 0 && n < maxBytes {
		it := s.pending[0]
		s.pending[0] = SnapshotItem{}
		s.pending = s.pending[1:]
		sz := it.size()
		s.cowNow -= sz
		n += sz
		dst = append(dst, it)
	}
	if len(s.pending) == 0 {
		s.pending = nil // let the backing array go
	}
	var slab []byte
	for s.next < len(s.segs) && n < maxBytes {
		g := s.segs[s.next]
		slots := g.array()
		for int(g.cursor) < len(slots) && n < maxBytes {
			i := g.cursor
			g.cursor++
			if _, ok := g.skip[i]; ok {
				delete(g.skip, i)
				continue
			}
			if !slots[i].live() {
				continue
			}
			if cap(slab)-len(slab) < int(slots[i].n) && int(slots[i].n) < slabBytes/8 {
				slab = make([]byte, 0, slabBytes)
			}
			it := SnapshotItem{DB: g.db, e: detach(&slots[i], &slab)}
			n += it.size() + slotBytes
			s.done++
			dst = append(dst, it)
		}
		if int(g.cursor) >= len(slots) {
			if g.live != nil {
				g.live.snap = nil
			}
			s.segs[s.next] = nil
			s.next++
		}
	}
	return dst, len(s.pending) == 0 && s.next == len(s.segs)
}

// EndSnapshot ends the snapshot, complete or not: the hooks go quiet and
// the copies it held are dropped.
func (k *Keyspace) EndSnapshot() {
	if k.snap == nil {
		return
	}
	for i := range k.dbs {
		k.dbs[i].snap = nil
	}
	k.snap = nil
}

// SnapshotInfo is the progress of the snapshot being taken, for INFO
// persistence.
type SnapshotInfo struct {
	// KeysDone of KeysTotal keys have been copied out
	// (current_save_keys_processed, current_save_keys_total).
	KeysDone, KeysTotal int64
	// CowBytes is what the copies of keys changed during the snapshot
	// hold now, CowPeak the most they held (current_cow_size,
	// current_cow_peak).
	CowBytes, CowPeak int64
}

// SnapshotProgress returns the figures of the snapshot being taken (zero
// when none is).
func (k *Keyspace) SnapshotProgress() SnapshotInfo {
	s := k.snap
	if s == nil {
		return SnapshotInfo{}
	}
	return SnapshotInfo{KeysDone: s.done, KeysTotal: s.total, CowBytes: s.cowNow, CowPeak: s.cowPk}
}

// AppendRDB appends the item as an RDB file holds a key (rdbSaveKeyValuePair:
// deadline, type, name, value), encoded by w. Any goroutine may call it: the
// item shares nothing with the keyspace.
func (it *SnapshotItem) AppendRDB(w *RDBWriter, b []byte) []byte {
	v := Value{obj: it.e.obj}
	if v.obj == nil {
		v.str = it.e.val()
	}
	return AppendRDBKey(w, b, readOnly(it.e.key()), v, it.e.expireAt)
}

// AppendRDBValue appends the item's value as a DUMP payload holds it (its
// type and encoding, without the footer).
func (it *SnapshotItem) AppendRDBValue(w *RDBWriter, b []byte) []byte {
	v := Value{obj: it.e.obj}
	if v.obj == nil {
		v.str = it.e.val()
	}
	return AppendRDBValue(w, b, v)
}

// snapSwapped is told that databases a and b traded places (SWAPDB): each
// walk follows its database's keys, which it still writes under the
// number they had when the snapshot began.
func (k *Keyspace) snapSwapped(a, b int) {
	for _, x := range []int{a, b} {
		if g := k.dbs[x].snap; g != nil {
			g.live = &k.dbs[x]
		}
	}
}
