package keyspace

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"github.com/tidwall/btree"

	"github.com/minilock/minilock/keyspace/internal/dict"
	"github.com/minilock/minilock/keyspace/internal/pack"
)

// A sorted set's value. Small ones keep member, score pairs in one pack in
// (score, member) order (Redis's listpack); past zset-max-listpack-entries
// members or a member longer than zset-max-listpack-value they move for
// good to an ordered index (a B-tree with counted nodes, so a rank is a
// descent) plus a member -> score dict (Redis's skiplist and dict). Members
// order as Redis orders them: by score, then by their bytes.
//
// A member's bytes are held once, by the dict: the B-tree's items are the
// score and the member's dict slot (a znode, 12 bytes), and compare
// members through the dict when scores tie. A compaction of the dict
// renumbers the slots in the items in place (it keeps their order).

type zitem struct {
	score  float64
	member string
}

func zless(a, b zitem) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

// znode is a B-tree item: a score's bits in two halves (so the item is 12
// bytes, not 16) and the member's dict slot.
type znode struct{ hi, lo, slot uint32 }

func mkznode(score float64, slot uint32) znode {
	b := math.Float64bits(score)
	return znode{uint32(b >> 32), uint32(b), slot}
}

func (n znode) score() float64 { return math.Float64frombits(uint64(n.hi)<<32 | uint64(n.lo)) }

type zsetValue struct {
	small pack.Pack // member, score(8 bytes), ... while tree is nil
	tree  *btree.BTreeG[znode]
	dict  *dict.Dict[float64]
}

// item is n with its member.
func (z *zsetValue) item(n znode) zitem { return zitem{n.score(), z.dict.Key(n.slot)} }

// itemAt is the item of rank i of a large set.
func (z *zsetValue) itemAt(i int) zitem {
	n, _ := z.tree.GetAt(i)
	return z.item(n)
}

// remap renumbers the tree's slots after the dict compacted.
func (z *zsetValue) remap(remap []uint32) {
	z.tree.WalkMut(func(items []znode) bool {
		for i := range items {
			items[i].slot = remap[items[i].slot]
		}
		return true
	})
}

// A small set's pack holds one entry per member, in order: the member's
// bytes, then its score, written to be read from the entry's end, so that
// a member costs one entry header, as a listpack element costs its header
// and backlen. An integral score below 2^53 in magnitude is kept as the
// difference d from the score before it (from 0 for the first member, or
// after a member whose score is not such an integer), as zigzag(d)+1 in a
// varint read backwards: the last byte holds the lowest 7 bits, and its top
// bit says whether a byte with the next ones comes before it. Scores in
// order are close, so most take a byte or two (a sliding window's ms
// timestamps: 1 to 3 instead of 6). Any other score is its float64's 8
// bytes and a 0 byte, which no varint of zigzag(d)+1 ends with. Redis's
// listpack keeps an integral score as an integer, which loses the sign of
// -0: so does this.

// integral reports whether f is kept as an integer.
func integral(f float64) bool { return f == math.Trunc(f) && math.Abs(f) < 1<<53 }

// packScore returns score, following a member whose integer base is base
// (its score, or 0), as an entry's suffix, in buf.
func packScore(buf *[9]byte, score float64, base int64) []byte {
	if integral(score) {
		d := int64(score) - base
		v := uint64(d<<1^d>>63) + 1
		i := len(buf)
		for {
			i--
			buf[i] = byte(v&0x7f) | 0x80
			if v >>= 7; v == 0 {
				break
			}
		}
		buf[i] &= 0x7f // the first byte: none of the score's before it
		return buf[i:]
	}
	binary.BigEndian.PutUint64(buf[:8], math.Float64bits(score))
	buf[8] = 0
	return buf[:]
}

// splitEntry returns an entry's member, and its score given the integer
// base of the member before it; base becomes this member's.
func splitEntry(e []byte, base *int64) ([]byte, float64) {
	n := len(e) - 1
	if c := e[n]; c < 0x80 && c != 0 { // the usual: a byte
		v := uint64(c) - 1
		*base += int64(v>>1) ^ -int64(v&1)
		return e[:n:n], float64(*base)
	}
	if e[n] == 0 {
		*base = 0
		return e[: n-8 : n-8], math.Float64frombits(binary.BigEndian.Uint64(e[n-8:]))
	}
	var v uint64
	shift := uint(0)
	for ; ; n-- {
		v |= uint64(e[n]&0x7f) << shift
		shift += 7
		if e[n]&0x80 == 0 {
			break
		}
	}
	v--
	*base += int64(v>>1) ^ -int64(v&1)
	return e[:n:n], float64(*base)
}

// memberLen returns the length of an entry's member.
func memberLen(e []byte) int {
	n := len(e) - 1
	if c := e[n]; c < 0x80 && c != 0 {
		return n
	}
	return memberLenLong(e)
}

func memberLenLong(e []byte) int {
	n := len(e) - 1
	if e[n] == 0 {
		return n - 8
	}
	for e[n]&0x80 != 0 {
		n--
	}
	return n
}

// zwalk walks a small set's pack in order. It keeps offsets, not slices,
// so that a step writes no pointer (and pays no write barrier).
type zwalk struct {
	off, next int // the current entry's offset, the next one's
	m0, m1    int // the current member's bytes in the pack
	base      int64
	score     float64
}

// step moves to the next entry; false at the end.
func (w *zwalk) step(p *pack.Pack) bool {
	if w.next >= p.End() {
		return false
	}
	e, next := p.At(w.next)
	w.off, w.next, w.m0 = w.next, next, next-len(e)
	if c := e[len(e)-1]; c < 0x80 && c != 0 { // the usual: a byte
		v := uint64(c) - 1
		w.base += int64(v>>1) ^ -int64(v&1)
		w.m1, w.score = next-1, float64(w.base)
		return true
	}
	m, score := splitEntry(e, &w.base)
	w.m1, w.score = w.m0+len(m), score
	return true
}

// member is the current member's bytes, the pack's.
func (w *zwalk) member(p *pack.Pack) []byte { return p.Bytes(w.m0, w.m1) }

// rewrite re-encodes the entry at off, whose member and score are as
// given, after a member whose integer base is base: its neighbour before
// it changed.
func (z *zsetValue) rewrite(off int, member []byte, score float64, base int64) {
	var buf [9]byte
	var scratch [80]byte
	e := append(scratch[:0], member...) // member is the pack's: Replace moves it
	z.small.Replace(off, append(e, packScore(&buf, score, base)...))
}

// transient views b as a string without copying it, for a comparison that
// does not keep it: the pack's bytes change with the next write. (Walking
// a pack with string(m) allocated once per member compared.)
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// find returns the offset of member's entry in a small set, or -1.
func (z *zsetValue) find(member []byte) int {
	for off := 0; off < z.small.End(); {
		e, next := z.small.At(off)
		if n := memberLen(e); n == len(member) && string(e[:n]) == string(member) {
			return off
		}
		off = next
	}
	return -1
}

func (z *zsetValue) len() int {
	if z.tree != nil {
		return z.tree.Len()
	}
	return z.small.Len()
}

// zitemBytes is what the index holds per member beside the dict's entry:
// the item in a B-tree node at its usual fill.
const zitemBytes = 20

func (z *zsetValue) size() int64 {
	if z.tree != nil {
		return z.dict.Size() + int64(z.tree.Len())*zitemBytes
	}
	return int64(z.small.Size())
}

// score returns member's score.
func (z *zsetValue) score(member []byte) (float64, bool) {
	if z.tree != nil {
		return z.dict.Get(member)
	}
	// A member's score depends on the ones before it: find it by its
	// bytes alone first, then decode the scores up to it.
	off := z.find(member)
	if off < 0 {
		return 0, false
	}
	w := zwalk{}
	for w.step(&z.small) && w.off < off {
	}
	return w.score, true
}

// zfound is what smallFind learns in one walk of a small set.
type zfound struct {
	off   int     // member's entry, -1 when missing
	score float64 // its score
	base  int64   // the integer base before it
	at    int     // where member would go with the score asked, were it new
	atB   int64   // the integer base before at
}

// smallFind walks a small set once for member, and for the place
// (score, member) would take if member were new.
func (z *zsetValue) smallFind(member []byte, score float64) zfound {
	f := zfound{off: -1, at: -1}
	it := zitem{score, transient(member)}
	w := zwalk{}
	for {
		base := w.base
		if !w.step(&z.small) {
			break
		}
		if f.at < 0 && zless(it, zitem{w.score, transient(w.member(&z.small))}) {
			f.at, f.atB = w.off, base
		}
		if w.m1-w.m0 == len(member) && string(w.member(&z.small)) == string(member) {
			f.off, f.score, f.base = w.off, w.score, base
			return f // (at is not needed: the member is there)
		}
	}
	if f.at < 0 {
		f.at, f.atB = z.small.End(), w.base
	}
	return f
}

// moveSmall gives a small set's member, found by smallFind, a new score.
func (z *zsetValue) moveSmall(member []byte, f zfound, score float64) {
	var scratch [80]byte
	m := append(scratch[:0], member...) // (member may be the pack's)
	z.delAfter(f.off, f.base)
	if score > f.score {
		// Every entry before the old place orders before the new one.
		z.insertSmall(m, score, f.off, f.base)
	} else {
		z.insertSmall(m, score, 0, 0)
	}
}

// lookup is score that also returns a large set's member's dict slot,
// for move.
func (z *zsetValue) lookup(member []byte) (float64, uint32, bool) {
	if z.tree != nil {
		i, ok := z.dict.Find(member)
		if !ok {
			return 0, 0, false
		}
		return z.dict.Val(i), i, true
	}
	s, ok := z.score(member)
	return s, 0, ok
}

// move gives a large set's member at slot i, of score old, a new score.
func (z *zsetValue) move(i uint32, old, score float64) {
	z.tree.Delete(mkznode(old, i))
	*z.dict.ValRef(i) = score
	z.tree.Set(mkznode(score, i))
}

// put sets member's score (inserting it, or moving it), converting the set
// when it outgrows enc.
func (z *zsetValue) put(member []byte, score float64, enc *Encodings) {
	z.putKnown(member, score, enc, z.tree == nil && z.find(member) < 0)
}

// putKnown is put told whether member is new (ZADD has looked it up
// already; a search of a pack is a walk).
func (z *zsetValue) putKnown(member []byte, score float64, enc *Encodings, isNew bool) {
	if z.tree == nil && isNew && (z.len()+1 > enc.ZSetMaxListpackEntries || len(member) > enc.ZSetMaxListpackValue) {
		z.convert()
	}
	if z.tree != nil {
		if !isNew {
			if i, ok := z.dict.Find(member); ok {
				// An equal score (0 for -0 too) keeps the item's
				// place: Set replaces it.
				if old := z.dict.Val(i); old != score {
					z.move(i, old, score)
				} else {
					*z.dict.ValRef(i) = score
					z.tree.Set(mkznode(score, i))
				}
				return
			}
		}
		i, _ := z.dict.Insert(member, score)
		z.tree.Set(mkznode(score, i))
		return
	}
	if !isNew {
		if off := z.find(member); off >= 0 {
			z.delAt(off)
		}
	}
	z.insertSmall(member, score, 0, 0)
}

// insertSmall inserts member, new to a small set, before the first entry
// from the one at off (after a member of integer base base) on that
// orders after (score, member); every entry before off orders before it.
func (z *zsetValue) insertSmall(member []byte, score float64, off int, base int64) {
	// Insert before the first member that orders after (score, member),
	// and re-encode that one after the new one.
	it := zitem{score, transient(member)}
	w := zwalk{next: off, base: base}
	found := false
	for {
		base = w.base
		if found = w.step(&z.small); !found || zless(it, zitem{w.score, transient(w.member(&z.small))}) {
			break
		}
	}
	off = z.small.End()
	var scratch [80]byte
	var next []byte
	if found {
		off = w.off
		next = append(scratch[:0], w.member(&z.small)...) // the pack's bytes move
	}
	var buf [9]byte
	z.small.InsertJoined(off, member, packScore(&buf, score, base))
	if found {
		_, after := z.small.At(off)
		z.rewrite(after, next, w.score, baseOf(score))
	}
}

// baseOf is the integer base a member of this score gives the next one.
func baseOf(score float64) int64 {
	if integral(score) {
		return int64(score)
	}
	return 0
}

// reserve grows a small set's pack once for the members among pairs
// (score, member ...; scores parsed) that it does not hold yet, when they
// keep it small.
func (z *zsetValue) reserve(pairs [][]byte, scores []float64, enc *Encodings) {
	if z.tree != nil || len(scores) < 2 || len(scores) > enc.ZSetMaxListpackEntries {
		return // (too many to stay small: not worth a search each)
	}
	// The new members' scores, in order, each after the one before: the
	// bytes they take if they land together, as in a new set.
	news := make([]float64, 0, len(scores))
	need, n := 0, z.len()
	for j, s := range scores {
		m := pairs[2*j+1]
		if len(m) > enc.ZSetMaxListpackValue {
			return
		}
		if z.find(m) < 0 {
			need += pack.EntrySize(len(m))
			news = append(news, s)
			n++
		}
	}
	if n > enc.ZSetMaxListpackEntries {
		return
	}
	slices.Sort(news)
	var buf [9]byte
	base := int64(0)
	for _, s := range news {
		need += len(packScore(&buf, s, base))
		base = baseOf(s)
	}
	z.small.Grow(need)
}

// del removes member and reports whether it was there.
func (z *zsetValue) del(member []byte) bool {
	if z.tree != nil {
		i, ok := z.dict.Find(member)
		if !ok {
			return false
		}
		z.tree.Delete(mkznode(z.dict.Val(i), i))
		z.dict.DeleteMoving(member, z.remap)
		return true
	}
	off := z.find(member)
	if off < 0 {
		return false
	}
	z.delAt(off)
	return true
}

// delAt removes a small set's entry at off, re-encoding the next one.
func (z *zsetValue) delAt(off int) {
	w := zwalk{}
	for w.next < off {
		w.step(&z.small)
	}
	z.delAfter(off, w.base)
}

// delAfter is delAt told the integer base of the entry before off.
func (z *zsetValue) delAfter(off int, base int64) {
	w := zwalk{next: off, base: base}
	w.step(&z.small)
	if !w.step(&z.small) {
		z.small.Delete(off, 1)
		return
	}
	var scratch [80]byte
	next := append(scratch[:0], w.member(&z.small)...)
	z.small.Delete(off, 1)
	z.rewrite(off, next, w.score, base)
}

// A pivot's slot: an item of slot zLow orders before every member of its
// score, one of zHigh after them, so that a search by score alone seeks
// the index (zslFirstInRange) instead of bisecting ranks. No dict slot
// reaches them (a dict holds fewer than 2^32-2).
const (
	zHigh = math.MaxUint32 - 1
	zLow  = math.MaxUint32
)

// delRange removes a small set's members of ranks from..to (from <= to,
// both within 0..len-1) in one deletion, re-encoding the entry after them.
func (z *zsetValue) delRange(from, to int) {
	w := zwalk{}
	for i := 0; i < from; i++ {
		w.step(&z.small)
	}
	base, off := w.base, w.next // after the entry before from; from's
	for i := from; i <= to; i++ {
		w.step(&z.small)
	}
	if !w.step(&z.small) {
		z.small.Delete(off, to-from+1)
		return
	}
	var scratch [80]byte
	next := append(scratch[:0], w.member(&z.small)...)
	z.small.Delete(off, to-from+1)
	z.rewrite(off, next, w.score, base)
}

// delNodes removes a large set's items (scoreNodes found them; none
// twice).
func (z *zsetValue) delNodes(nodes []znode) {
	// Out of the index first, while the items' slots hold: a deletion
	// from the dict may compact it, renumbering the slots of the items
	// still in the index (and not those of nodes).
	var buf [16]string
	members := buf[:0]
	for _, n := range nodes {
		z.tree.Delete(n)
		members = append(members, z.dict.Key(n.slot)) // stays: see readOnly
	}
	for _, m := range members {
		z.dict.DeleteMoving(readOnly(m), z.remap)
	}
}

// newZTree is an empty index whose items' members are d's.
func newZTree(d *dict.Dict[float64]) *btree.BTreeG[znode] {
	return btree.NewBTreeGOptions(func(a, b znode) bool {
		if sa, sb := a.score(), b.score(); sa != sb {
			return sa < sb
		}
		switch {
		case a.slot == b.slot:
			return false
		case a.slot >= zHigh || b.slot >= zHigh:
			return a.slot == zLow || b.slot == zHigh
		}
		return d.Key(a.slot) < d.Key(b.slot)
	}, btree.Options{NoLocks: true})
}

// readOnly views a member the dict holds as bytes without copying them:
// a dict's key bytes never change once written (see package dict), so the
// view stays valid, but nothing may write through it.
func readOnly(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// minPivot is the pivot a range's lower end ascends from, maxPivot the one
// its upper end descends from.
func (r zrangeSpec) minPivot() znode {
	if r.minex {
		return mkznode(r.min, zHigh)
	}
	return mkznode(r.min, zLow)
}

func (r zrangeSpec) maxPivot() znode {
	if r.maxex {
		return mkznode(r.max, zLow)
	}
	return mkznode(r.max, zHigh)
}

// empty reports whether no score can lie in r.
func (r zrangeSpec) empty() bool { return r.min > r.max || r.min == r.max && (r.minex || r.maxex) }

// zseekOffset is the LIMIT offset from which scoreNodes finds its first
// item by rank rather than walking to it.
const zseekOffset = 64

// scoreNodes appends to buf the items of a large set whose scores lie in
// r, in reported order (rev: descending), past the first offset of them,
// at most limit of them (limit < 0: no limit); genericZrangebyscoreCommand.
func (z *zsetValue) scoreNodes(r zrangeSpec, rev bool, offset, limit int64, buf []znode) []znode {
	if r.empty() || offset < 0 || limit == 0 || offset >= int64(z.tree.Len()) {
		return buf
	}
	pivot := r.minPivot()
	if rev {
		pivot = r.maxPivot()
	}
	if offset >= zseekOffset {
		// Far in: find the range's end by rank, then the item offset
		// from it, rather than walk offset items.
		var i int
		if rev {
			i = z.firstNode(func(n znode) bool { return z.tree.Less(pivot, n) }) - 1 - int(offset)
		} else {
			i = z.firstNode(func(n znode) bool { return z.tree.Less(pivot, n) }) + int(offset)
		}
		if i < 0 || i >= z.tree.Len() {
			return buf
		}
		pivot, _ = z.tree.GetAt(i)
		offset = 0
	}
	if rev {
		iter := func(n znode) bool {
			if !r.gteMin(n.score()) {
				return false
			}
			if offset > 0 {
				offset--
				return true
			}
			buf = append(buf, n)
			limit--
			return limit != 0
		}
		if pivot.slot == zHigh && math.IsInf(r.max, 1) {
			z.tree.Reverse(iter) // from the end: no search
		} else {
			z.tree.Descend(pivot, iter)
		}
		return buf
	}
	iter := func(n znode) bool {
		if !r.lteMax(n.score()) {
			return false
		}
		if offset > 0 {
			offset--
			return true
		}
		buf = append(buf, n)
		limit--
		return limit != 0
	}
	if pivot.slot == zLow && math.IsInf(r.min, -1) {
		z.tree.Scan(iter) // from the start: no search
	} else {
		z.tree.Ascend(pivot, iter)
	}
	return buf
}

// loadSorted makes z a large set of items, given in order.
func (z *zsetValue) loadSorted(items func(f func(m []byte, s float64) bool)) {
	d := &dict.Dict[float64]{}
	tree := newZTree(d)
	items(func(m []byte, s float64) bool {
		i, _ := d.Insert(m, s)
		tree.Load(mkznode(s, i)) // in order: appended
		return true
	})
	z.tree, z.dict, z.small = tree, d, pack.Pack{}
}

func (z *zsetValue) convert() {
	zz := &zsetValue{small: z.small}
	z.loadSorted(func(f func(m []byte, s float64) bool) { zz.each(0, zz.len()-1, false, f) })
}

// at returns the member and score of rank i (0 is the lowest); the
// member's bytes are the set's, as each's are.
func (z *zsetValue) at(i int) ([]byte, float64) {
	if z.tree != nil {
		it := z.itemAt(i)
		return readOnly(it.member), it.score
	}
	w := zwalk{}
	for ; i >= 0 && w.step(&z.small); i-- {
	}
	return w.member(&z.small), w.score
}

// firstRank returns the lowest rank whose member satisfies pred, or len
// when none does. pred must hold from some rank on and not before
// (a range's lower bound).
func (z *zsetValue) firstRank(pred func(zitem) bool) int {
	if z.tree != nil {
		return z.firstNode(func(n znode) bool { return pred(z.item(n)) })
	}
	i := 0
	for w := (zwalk{}); w.step(&z.small); i++ {
		if pred(zitem{w.score, transient(w.member(&z.small))}) {
			return i
		}
	}
	return i
}

// firstNode is firstRank for a large set, on its items (which only read
// a member from the dict when the predicate needs it).
func (z *zsetValue) firstNode(pred func(znode) bool) int {
	lo, hi := 0, z.tree.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if n, _ := z.tree.GetAt(mid); pred(n) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// firstScoreRank is firstRank for a predicate on the score alone.
func (z *zsetValue) firstScoreRank(pred func(float64) bool) int {
	if z.tree != nil {
		return z.firstNode(func(n znode) bool { return pred(n.score()) })
	}
	i := 0
	for w := (zwalk{}); w.step(&z.small); i++ {
		if pred(w.score) {
			break
		}
	}
	return i
}

// rank returns member's rank (0 is the lowest).
func (z *zsetValue) rank(member []byte) (int, bool) {
	if z.tree != nil {
		i, ok := z.dict.Find(member)
		if !ok {
			return 0, false
		}
		it := mkznode(z.dict.Val(i), i)
		return z.firstNode(func(x znode) bool { return !z.tree.Less(x, it) }), true
	}
	s, ok := z.score(member)
	if !ok {
		return 0, false
	}
	it := zitem{s, string(member)}
	return z.firstRank(func(x zitem) bool { return !zless(x, it) }), true
}

// each calls f for the members of ranks from..to (inclusive, both within
// 0..len-1), upwards or, with reverse, from to down to from, until f
// returns false. A member's bytes are the set's own: f must not write to
// them, nor keep them past a change to the set.
func (z *zsetValue) each(from, to int, reverse bool, f func(member []byte, score float64) bool) {
	if from > to {
		return
	}
	if z.tree != nil {
		n := to - from + 1
		iter := func(it znode) bool {
			n--
			return f(readOnly(z.dict.Key(it.slot)), it.score()) && n > 0
		}
		if reverse {
			pivot, _ := z.tree.GetAt(to)
			z.tree.Descend(pivot, iter)
		} else {
			pivot, _ := z.tree.GetAt(from)
			z.tree.Ascend(pivot, iter)
		}
		return
	}
	w := zwalk{}
	for i := 0; i < from && w.step(&z.small); i++ {
	}
	if !reverse {
		for i := from; i <= to && w.step(&z.small); i++ {
			if !f(w.member(&z.small), w.score) {
				return
			}
		}
		return
	}
	// A pack walks forwards only: collect the offsets and scores, then go
	// back.
	type at struct {
		off, mlen int
		score     float64
	}
	ats := make([]at, 0, to-from+1)
	for i := from; i <= to && w.step(&z.small); i++ {
		ats = append(ats, at{w.off, w.m1 - w.m0, w.score})
	}
	for i := len(ats) - 1; i >= 0; i-- {
		e, _ := z.small.At(ats[i].off)
		if !f(e[:ats[i].mlen:ats[i].mlen], ats[i].score) {
			return
		}
	}
}

// random returns a random member and its score; the set is not empty.
// The member's bytes are the set's, as each's are.
func (z *zsetValue) random(k *Keyspace) ([]byte, float64) {
	if z.tree != nil {
		m, s := z.dict.Random(k.rng.IntN)
		return readOnly(m), s
	}
	return z.at(k.rng.IntN(z.len()))
}

// shrinkIfSmall converts a set built large (a store command's result) to a
// pack when it fits the thresholds, as zsetConvertToListpackIfNeeded does.
func (z *zsetValue) shrinkIfSmall(enc *Encodings) {
	if z.tree == nil || z.tree.Len() > enc.ZSetMaxListpackEntries {
		return
	}
	fits := true
	z.tree.Scan(func(it znode) bool {
		fits = len(z.dict.Key(it.slot)) <= enc.ZSetMaxListpackValue
		return fits
	})
	if !fits {
		return
	}
	var p pack.Pack
	var buf [9]byte
	base := int64(0)
	z.tree.Scan(func(it znode) bool {
		p.AppendJoined([]byte(z.dict.Key(it.slot)), packScore(&buf, it.score(), base))
		base = baseOf(it.score())
		return true
	})
	z.small, z.tree, z.dict = p, nil, nil
}

func (z *zsetValue) clone() value {
	c := &zsetValue{small: z.small.Clone()}
	if z.tree != nil {
		// The clone's items compare through its own dict, whose slots
		// are the original's.
		c.dict = z.dict.Clone()
		c.tree = newZTree(c.dict)
		z.tree.Scan(func(it znode) bool { c.tree.Load(it); return true })
	}
	return c
}
