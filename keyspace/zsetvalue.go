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

type zsetValue struct {
	small pack.Pack // member, score(8 bytes), ... while tree is nil
	tree  *btree.BTreeG[zitem]
	dict  *dict.Dict[float64]
}

// packScore is a score as a pack holds it. Redis's listpack keeps an
// integral score as an integer, which loses the sign of -0: so does this.
func packScore(f float64) []byte {
	if f == 0 {
		f = 0
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], math.Float64bits(f))
	return b[:]
}

// transient views b as a string without copying it, for a comparison that
// does not keep it: the pack's bytes change with the next write. (Walking
// a pack with string(m) allocated once per member compared.)
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func unpackScore(b []byte) float64 { return math.Float64frombits(binary.BigEndian.Uint64(b)) }

func (z *zsetValue) len() int {
	if z.tree != nil {
		return z.tree.Len()
	}
	return z.small.Len() / 2
}

// zitemBytes is what the index holds per member beside the dict's entry:
// the item in a B-tree node at its usual fill.
const zitemBytes = 40

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
	if off := z.small.Find(member, 2); off >= 0 {
		_, next := z.small.At(off)
		s, _ := z.small.At(next)
		return unpackScore(s), true
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
		if old, ok := z.dict.Get(member); ok {
			z.tree.Delete(zitem{old, string(member)})
		}
		m := string(member)
		z.dict.Set(member, score)
		z.tree.Set(zitem{score, m})
		return
	}
	z.del(member)
	// Insert before the first pair that orders after (score, member).
	it := zitem{score, transient(member)}
	off := 0
	for off < z.small.End() {
		m, next := z.small.At(off)
		s, after := z.small.At(next)
		if zless(it, zitem{unpackScore(s), transient(m)}) {
			break
		}
		off = after
	}
	z.small.Insert(off, member)
	_, next := z.small.At(off)
	z.small.Insert(next, packScore(score))
}

// del removes member and reports whether it was there.
func (z *zsetValue) del(member []byte) bool {
	if z.tree != nil {
		old, ok := z.dict.Get(member)
		if !ok {
			return false
		}
		z.dict.Delete(member)
		z.tree.Delete(zitem{old, string(member)})
		return true
	}
	if off := z.small.Find(member, 2); off >= 0 {
		z.small.Delete(off, 2)
		return true
	}
	return false
}

func newZTree() *btree.BTreeG[zitem] {
	return btree.NewBTreeGOptions(zless, btree.Options{NoLocks: true})
}

func (z *zsetValue) convert() {
	tree, d := newZTree(), &dict.Dict[float64]{}
	z.each(0, z.len()-1, false, func(m []byte, s float64) bool {
		d.Set(m, s)
		tree.Set(zitem{s, string(m)})
		return true
	})
	z.tree, z.dict, z.small = tree, d, pack.Pack{}
}

// at returns the member and score of rank i (0 is the lowest).
func (z *zsetValue) at(i int) ([]byte, float64) {
	if z.tree != nil {
		it, _ := z.tree.GetAt(i)
		return []byte(it.member), it.score
	}
	m, next := z.small.At(z.small.Offset(2 * i))
	s, _ := z.small.At(next)
	return m, unpackScore(s)
}

// firstRank returns the lowest rank whose member satisfies pred, or len
// when none does. pred must hold from some rank on and not before
// (a range's lower bound).
func (z *zsetValue) firstRank(pred func(zitem) bool) int {
	if z.tree != nil {
		lo, hi := 0, z.tree.Len()
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if it, _ := z.tree.GetAt(mid); pred(it) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	}
	i := 0
	for off := 0; off < z.small.End(); i++ {
		m, next := z.small.At(off)
		s, after := z.small.At(next)
		if pred(zitem{unpackScore(s), transient(m)}) {
			return i
		}
		off = after
	}
	return i
}

// rank returns member's rank (0 is the lowest).
func (z *zsetValue) rank(member []byte) (int, bool) {
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
		iter := func(it zitem) bool {
			n--
			return f([]byte(it.member), it.score) && n > 0
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
		off := z.small.Offset(2 * from)
		for i := from; i <= to; i++ {
			var m, s []byte
			m, off = z.small.At(off)
			s, off = z.small.At(off)
			if !f(m, unpackScore(s)) {
				return
			}
		}
		return
	}
	// A pack walks forwards only: collect the offsets, then go back.
	offs := make([]int, 0, to-from+1)
	off := z.small.Offset(2 * from)
	for i := from; i <= to; i++ {
		offs = append(offs, off)
		_, off = z.small.At(off)
		_, off = z.small.At(off)
	}
	for i := len(offs) - 1; i >= 0; i-- {
		m, next := z.small.At(offs[i])
		s, _ := z.small.At(next)
		if !f(m, unpackScore(s)) {
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
	z.tree.Scan(func(it zitem) bool {
		fits = len(it.member) <= enc.ZSetMaxListpackValue
		return fits
	})
	if !fits {
		return
	}
	var p pack.Pack
	z.tree.Scan(func(it zitem) bool {
		p.Append([]byte(it.member))
		p.Append(packScore(it.score))
		return true
	})
	z.small, z.tree, z.dict = p, nil, nil
}

func (z *zsetValue) clone() value {
	c := &zsetValue{small: z.small.Clone()}
	if z.tree != nil {
		c.tree, c.dict = z.tree.Copy(), z.dict.Clone()
	}
	return c
}
