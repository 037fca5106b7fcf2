package keyspace

import (
	"encoding/binary"
	"math"
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

// A small set's pack holds one entry per member: the member's bytes, then
// its score, written to be read from the entry's end, so that a member
// costs one entry header, as a listpack element costs its header and
// backlen. Redis's listpack keeps an integral score as an integer, which
// loses the sign of -0: so does this. An integral score below 2^53 in
// magnitude is zigzag(n)+1 as a varint read backwards (the last byte holds
// the lowest 7 bits, and its top bit says whether a byte with the next
// ones comes before it): 1 byte within -64..63, 3 within a million, 6 for
// a Unix time in ms. Any other score is its float64's 8 bytes and a 0
// byte, which no varint of zigzag(n)+1 ends with.

// packScore returns f as a pack entry's suffix, in buf.
func packScore(buf *[9]byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		n := int64(f)
		v := uint64(n<<1^n>>63) + 1
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
	binary.BigEndian.PutUint64(buf[:8], math.Float64bits(f))
	buf[8] = 0
	return buf[:]
}

// splitEntry returns a small set's entry's member and score.
func splitEntry(e []byte) ([]byte, float64) {
	n := len(e) - 1
	if e[n] == 0 {
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
	return e[:n:n], float64(int64(v>>1) ^ -int64(v&1))
}

// transient views b as a string without copying it, for a comparison that
// does not keep it: the pack's bytes change with the next write. (Walking
// a pack with string(m) allocated once per member compared.)
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// find returns the offset of member's entry in a small set, or -1.
func (z *zsetValue) find(member []byte) int {
	for off := 0; off < z.small.End(); {
		e, next := z.small.At(off)
		// Most entries are rejected by their length or first bytes
		// before their score is read.
		if len(e) > len(member) && string(e[:len(member)]) == string(member) {
			if m, _ := splitEntry(e); len(m) == len(member) {
				return off
			}
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
	if off := z.find(member); off >= 0 {
		e, _ := z.small.At(off)
		_, s := splitEntry(e)
		return s, true
	}
	return 0, false
}

// put sets member's score (inserting it, or moving it), converting the set
// when it outgrows enc.
func (z *zsetValue) put(member []byte, score float64, enc *Encodings) {
	if z.tree == nil {
		if _, exists := z.score(member); !exists && (z.len()+1 > enc.ZSetMaxListpackEntries || len(member) > enc.ZSetMaxListpackValue) {
			z.convert()
		}
	}
	if z.tree != nil {
		if i, ok := z.dict.Find(member); ok {
			// An equal score (0 for -0 too) keeps the item's place:
			// Set replaces it.
			if old := z.dict.Val(i); old != score {
				z.tree.Delete(mkznode(old, i))
			}
			*z.dict.ValRef(i) = score
			z.tree.Set(mkznode(score, i))
			return
		}
		i, _ := z.dict.Insert(member, score)
		z.tree.Set(mkznode(score, i))
		return
	}
	z.del(member)
	// Insert before the first member that orders after (score, member).
	it := zitem{score, transient(member)}
	off := 0
	for off < z.small.End() {
		e, next := z.small.At(off)
		m, s := splitEntry(e)
		if zless(it, zitem{s, transient(m)}) {
			break
		}
		off = next
	}
	var buf [9]byte
	z.small.InsertJoined(off, member, packScore(&buf, score))
}

// reserve grows a small set's pack once for the members among pairs
// (score, member ...; scores parsed) that it does not hold yet, when they
// keep it small.
func (z *zsetValue) reserve(pairs [][]byte, scores []float64, enc *Encodings) {
	if z.tree != nil || len(scores) < 2 {
		return
	}
	need, n := 0, z.len()
	var buf [9]byte
	for j, s := range scores {
		m := pairs[2*j+1]
		if len(m) > enc.ZSetMaxListpackValue {
			return
		}
		if z.find(m) < 0 {
			need += pack.EntrySize(len(m) + len(packScore(&buf, s)))
			n++
		}
	}
	if n <= enc.ZSetMaxListpackEntries {
		z.small.Grow(need)
	}
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
	if off := z.find(member); off >= 0 {
		z.small.Delete(off, 1)
		return true
	}
	return false
}

// newZTree is an empty index whose items' members are d's.
func newZTree(d *dict.Dict[float64]) *btree.BTreeG[znode] {
	return btree.NewBTreeGOptions(func(a, b znode) bool {
		if sa, sb := a.score(), b.score(); sa != sb {
			return sa < sb
		}
		return a.slot != b.slot && d.Key(a.slot) < d.Key(b.slot)
	}, btree.Options{NoLocks: true})
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

// at returns the member and score of rank i (0 is the lowest).
func (z *zsetValue) at(i int) ([]byte, float64) {
	if z.tree != nil {
		it := z.itemAt(i)
		return []byte(it.member), it.score
	}
	e, _ := z.small.At(z.small.Offset(i))
	return splitEntry(e)
}

// firstRank returns the lowest rank whose member satisfies pred, or len
// when none does. pred must hold from some rank on and not before
// (a range's lower bound).
func (z *zsetValue) firstRank(pred func(zitem) bool) int {
	if z.tree != nil {
		return z.firstNode(func(n znode) bool { return pred(z.item(n)) })
	}
	i := 0
	for off := 0; off < z.small.End(); i++ {
		e, next := z.small.At(off)
		m, s := splitEntry(e)
		if pred(zitem{s, transient(m)}) {
			return i
		}
		off = next
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
	return z.firstRank(func(it zitem) bool { return pred(it.score) })
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
// returns false.
func (z *zsetValue) each(from, to int, reverse bool, f func(member []byte, score float64) bool) {
	if from > to {
		return
	}
	if z.tree != nil {
		n := to - from + 1
		iter := func(it znode) bool {
			n--
			return f([]byte(z.dict.Key(it.slot)), it.score()) && n > 0
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
	if !reverse {
		off := z.small.Offset(from)
		for i := from; i <= to; i++ {
			var e []byte
			e, off = z.small.At(off)
			if !f(splitEntry(e)) {
				return
			}
		}
		return
	}
	// A pack walks forwards only: collect the offsets, then go back.
	offs := make([]int, 0, to-from+1)
	off := z.small.Offset(from)
	for i := from; i <= to; i++ {
		offs = append(offs, off)
		_, off = z.small.At(off)
	}
	for i := len(offs) - 1; i >= 0; i-- {
		e, _ := z.small.At(offs[i])
		if !f(splitEntry(e)) {
			return
		}
	}
}

// random returns a random member and its score; the set is not empty.
func (z *zsetValue) random(k *Keyspace) ([]byte, float64) {
	if z.tree != nil {
		m, s := z.dict.Random(k.rng.IntN)
		return []byte(m), s
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
	z.tree.Scan(func(it znode) bool {
		p.AppendJoined([]byte(z.dict.Key(it.slot)), packScore(&buf, it.score()))
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
