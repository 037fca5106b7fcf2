package keyspace

import (
	"bytes"
	"slices"

	"github.com/minilock/minilock/keyspace/internal/pack"
)

// A list's value: Redis's quicklist, a sequence of chunks, each a pack of
// elements, at most list-max-listpack-size big (negative: bytes, -1 for 4
// KiB to -5 for 64 KiB; positive: elements). Pushes and pops at either end
// touch one chunk; an index is found by walking the chunks' lengths.
type listValue struct {
	chunks []*pack.Pack // none is empty
	n      int
	bytes  int64 // the chunks' sizes, kept as they change
	fill   int   // list-max-listpack-size when the list was made
	// tail caches the offsets of the last chunk's elements (a pack walks
	// only forwards), so RPUSH and RPOP stay O(1) as LPUSH and LPOP are.
	// It is valid while tailOf is the last chunk and len(tail) its Len;
	// every change to a chunk but pushBack and pop from the back drops it.
	tail   []int
	tailOf *pack.Pack
	// shared holds the chunks this list shares with a copy: COPY of a
	// list takes the chunks, not their bytes, and a list writes its own
	// clone of a shared chunk the first time it writes to it (own). Every
	// write to a chunk goes through own. nil when none is shared.
	shared map[*pack.Pack]struct{}
}

// own returns chunk c for writing: a chunk shared with a copy is replaced
// by a clone only this list holds.
func (l *listValue) own(c int) *pack.Pack {
	p := l.chunks[c]
	if _, ok := l.shared[p]; !ok {
		return p
	}
	delete(l.shared, p)
	if len(l.shared) == 0 {
		l.shared = nil
	}
	q := p.Clone()
	l.bytes += int64(q.Size() - p.Size())
	l.chunks[c] = &q
	if l.tailOf == p {
		l.tailOf = &q // the same bytes: the offsets stay right
	}
	return &q
}

// drop forgets chunks leaving the list, so a copy's chunk is not kept
// alive by this list's notes.
func (l *listValue) drop(ps []*pack.Pack) {
	if l.shared == nil {
		return
	}
	for _, p := range ps {
		delete(l.shared, p)
	}
	if len(l.shared) == 0 {
		l.shared = nil
	}
}

// tailOffsets returns the offsets of the last chunk's elements.
func (l *listValue) tailOffsets() []int {
	last := l.chunks[len(l.chunks)-1]
	if l.tailOf == last && len(l.tail) == last.Len() {
		return l.tail
	}
	l.tail, l.tailOf = l.tail[:0], last
	for off := 0; off < last.End(); {
		l.tail = append(l.tail, off)
		_, off = last.At(off)
	}
	return l.tail
}

// chunkHeader is what a chunk costs beside its bytes (the Pack and its
// pointer).
const chunkHeader = 40

func newList(enc *Encodings) *listValue { return &listValue{fill: enc.ListMaxListpackSize} }

func (l *listValue) len() int    { return l.n }
func (l *listValue) size() int64 { return l.bytes + int64(len(l.chunks))*chunkHeader }

// fits reports whether chunk p may take one more element of n bytes.
func (l *listValue) fits(p *pack.Pack, n int) bool {
	if l.fill >= 0 {
		return p.Len() < max(l.fill, 1) && p.End()+n <= l.limit()
	}
	return p.End()+n+2 <= l.limit()
}

// limit is the bytes a chunk holds at most (fits' bound).
func (l *listValue) limit() int {
	if l.fill >= 0 {
		return 8192
	}
	return 4096 << min(-l.fill-1, 4)
}

// grow makes room in chunk p for an element of n bytes, doubling the chunk
// (up to its limit) rather than growing it a size class at a time as a
// pack grows: pushes are what a list's end chunks take, one after another,
// and only those two chunks are ever part full.
func (l *listValue) grow(p *pack.Pack, n int) {
	if need := pack.EntrySize(n); p.Size()-p.End() < need {
		p.Grow(max(need, min(p.End(), l.limit()-p.End())))
	}
}

// resized accounts for a chunk whose size may have changed from old.
func (l *listValue) resized(p *pack.Pack, old int) { l.bytes += int64(p.Size() - old) }

func (l *listValue) pushFront(v []byte) {
	l.tailOf = nil
	if len(l.chunks) == 0 || !l.fits(l.chunks[0], len(v)) {
		l.chunks = slices.Insert(l.chunks, 0, &pack.Pack{})
	}
	p := l.own(0)
	old := p.Size()
	l.grow(p, len(v))
	p.Insert(0, v)
	l.resized(p, old)
	l.n++
}

func (l *listValue) pushBack(v []byte) {
	if len(l.chunks) == 0 || !l.fits(l.chunks[len(l.chunks)-1], len(v)) {
		l.chunks = append(l.chunks, &pack.Pack{})
	}
	p := l.own(len(l.chunks) - 1)
	if l.tailOf == p && len(l.tail) == p.Len() {
		l.tail = append(l.tail, p.End())
	}
	old := p.Size()
	l.grow(p, len(v))
	p.Append(v)
	l.resized(p, old)
	l.n++
}

func (l *listValue) push(v []byte, front bool) {
	if front {
		l.pushFront(v)
	} else {
		l.pushBack(v)
	}
}

// locate returns the chunk holding element i and i's index within it.
func (l *listValue) locate(i int) (int, int) {
	if i < l.n/2 {
		for c, p := range l.chunks {
			if i < p.Len() {
				return c, i
			}
			i -= p.Len()
		}
	}
	j := l.n - 1 - i // from the back
	for c := len(l.chunks) - 1; c >= 0; c-- {
		if j < l.chunks[c].Len() {
			return c, l.chunks[c].Len() - 1 - j
		}
		j -= l.chunks[c].Len()
	}
	return 0, 0
}

// at returns element i (0 <= i < len).
func (l *listValue) at(i int) []byte {
	c, k := l.locate(i)
	v, _ := l.chunks[c].At(l.chunks[c].Offset(k))
	return v
}

// set replaces element i.
func (l *listValue) set(i int, v []byte) {
	l.tailOf = nil
	c, k := l.locate(i)
	p := l.own(c)
	old := p.Size()
	p.Replace(p.Offset(k), v)
	l.resized(p, old)
}

// removeAt deletes element i.
func (l *listValue) removeAt(i int) {
	l.tailOf = nil
	c, k := l.locate(i)
	p := l.own(c)
	old := p.Size()
	p.Delete(p.Offset(k), 1)
	l.resized(p, old)
	l.n--
	if p.Len() == 0 {
		l.bytes -= int64(p.Size())
		l.chunks = slices.Delete(l.chunks, c, c+1)
	}
}

// insertAt puts v before element i (i == len appends).
func (l *listValue) insertAt(i int, v []byte) {
	l.tailOf = nil
	if i == l.n {
		l.pushBack(v)
		return
	}
	c, k := l.locate(i)
	p := l.own(c)
	old := p.Size()
	p.Insert(p.Offset(k), v)
	l.resized(p, old)
	l.n++
	if !l.fits(p, 0) {
		// Split the chunk in halves.
		half := p.Len() / 2
		var a, b pack.Pack
		i := 0
		for off := 0; off < p.End(); i++ {
			var e []byte
			e, off = p.At(off)
			if i < half {
				a.Append(e)
			} else {
				b.Append(e)
			}
		}
		l.bytes += int64(a.Size() + b.Size() - p.Size())
		l.chunks = slices.Replace(l.chunks, c, c+1, &a, &b)
	}
}

// pop removes and returns the first (front) or last element.
func (l *listValue) pop(front bool) []byte {
	if front {
		v := bytes.Clone(l.at(0))
		l.removeAt(0)
		return v
	}
	p := l.own(len(l.chunks) - 1)
	offs := l.tailOffsets()
	off := offs[len(offs)-1]
	v, _ := p.At(off)
	v = bytes.Clone(v)
	old := p.Size()
	p.Delete(off, 1)
	l.resized(p, old)
	l.n--
	l.tail = offs[:len(offs)-1]
	if p.Len() == 0 {
		l.bytes -= int64(p.Size())
		l.chunks = l.chunks[:len(l.chunks)-1]
		l.tailOf = nil
	}
	return v
}

// each calls f for elements from..to (0 <= from <= to < len), forwards or,
// with reverse, from to down to from, until f returns false.
func (l *listValue) each(from, to int, reverse bool, f func(v []byte) bool) {
	if from > to {
		return
	}
	if !reverse {
		c, k := l.locate(from)
		for i := from; c < len(l.chunks); c, k = c+1, 0 {
			p := l.chunks[c]
			for off := p.Offset(k); off < p.End() && i <= to; i++ {
				var v []byte
				v, off = p.At(off)
				if !f(v) {
					return
				}
			}
			if i > to {
				return
			}
		}
		return
	}
	c, k := l.locate(to)
	var offs []int
	for i := to; c >= 0; c-- {
		p := l.chunks[c]
		// A pack walks forwards: note the offsets of this chunk's part.
		offs = offs[:0]
		for off, j := 0, 0; j <= k; j++ {
			offs = append(offs, off)
			_, off = p.At(off)
		}
		for j := len(offs) - 1; j >= 0 && i >= from; j, i = j-1, i-1 {
			v, _ := p.At(offs[j])
			if !f(v) {
				return
			}
		}
		if i < from || c == 0 {
			return
		}
		k = l.chunks[c-1].Len() - 1
	}
}

// deleteRange removes count elements from index start.
func (l *listValue) deleteRange(start, count int) {
	l.tailOf = nil
	// Whole chunks go in one slice operation, so trimming many chunks off
	// a long list costs one pass over its chunk slice, not one each.
	for count > 0 {
		c, k := l.locate(start)
		p := l.chunks[c]
		if k == 0 && count >= p.Len() {
			e := c
			for e < len(l.chunks) && count >= l.chunks[e].Len() {
				count -= l.chunks[e].Len()
				l.n -= l.chunks[e].Len()
				l.bytes -= int64(l.chunks[e].Size())
				e++
			}
			l.drop(l.chunks[c:e])
			l.chunks = slices.Delete(l.chunks, c, e)
			continue
		}
		m := min(count, p.Len()-k)
		p = l.own(c)
		old := p.Size()
		p.Delete(p.Offset(k), m)
		l.resized(p, old)
		l.n -= m
		count -= m
		if p.Len() == 0 {
			l.bytes -= int64(p.Size())
			l.chunks = slices.Delete(l.chunks, c, c+1)
		}
	}
}

// remove deletes the elements equal to v, at most limit of them (0: every
// one), the first ones or, with reverse, the last ones, and returns how
// many it deleted. A chunk is rewritten at most once, so the cost is one
// pass over the list however many elements go (LREM).
func (l *listValue) remove(v []byte, limit int, reverse bool) int {
	removed, emptied := 0, false
	var offs []int // the offsets of a chunk's matches, from the back
	for step := 0; step < len(l.chunks) && (limit == 0 || removed < limit); step++ {
		c := step
		if reverse {
			c = len(l.chunks) - 1 - step
		}
		p := l.chunks[c]
		if _, ok := l.shared[p]; ok {
			if p.Find(v, 1) < 0 {
				continue // nothing to drop: left shared
			}
			p = l.own(c)
		}
		// The matches to drop: the first ones the limit leaves or, with
		// reverse, the last ones, which takes counting them first (a pack
		// walks forwards only).
		first, left := 0, 0
		if limit != 0 {
			left = limit - removed
		}
		if reverse && limit != 0 && c == len(l.chunks)-1 {
			// The last chunk's offsets are kept (tailOffsets): walked
			// back from its end as far as the matches to drop reach,
			// rather than walked whole forwards (LREM l -2 x, called
			// again and again on a long list).
			removed += l.removeFromTail(p, v, left)
			emptied = emptied || p.Len() == 0
			continue
		}
		if p == l.tailOf {
			l.tailOf = nil
		}
		if reverse && limit != 0 {
			offs = offs[:0]
			for off := 0; off < p.End(); {
				e, next := p.At(off)
				if bytes.Equal(e, v) {
					offs = append(offs, off)
				}
				off = next
			}
			if k := min(left, len(offs)); k <= 16 {
				// A few from the back (LREM l -2 x): deleted where they
				// are, last first, rather than walking the chunk again.
				old := p.Size()
				for j := len(offs) - 1; j >= len(offs)-k; j-- {
					p.Delete(offs[j], 1)
				}
				l.resized(p, old)
				removed += k
				emptied = emptied || p.Len() == 0
				continue
			}
			first = max(len(offs)-left, 0)
		}
		old, i := p.Size(), 0
		removed += p.DeleteIf(left, func(e []byte) bool {
			if !bytes.Equal(e, v) {
				return false
			}
			i++
			return i > first
		})
		l.resized(p, old)
		emptied = emptied || p.Len() == 0
	}
	l.n -= removed
	if emptied {
		l.chunks = slices.DeleteFunc(l.chunks, func(p *pack.Pack) bool {
			if p.Len() == 0 {
				l.bytes -= int64(p.Size())
				return true
			}
			return false
		})
	}
	return removed
}

// clone shares every chunk with the copy, each list cloning a chunk when
// it first writes to it (own): COPY of a list costs its chunk pointers, not
// its bytes (a 1,000,000-element list's 9 MB copied took twice
// redis-server's time).
// removeFromTail deletes the last left elements equal to v (left > 0) of
// p, the last chunk, walking back over its kept offsets, and keeps those
// offsets right for the next call. It returns how many it deleted.
func (l *listValue) removeFromTail(p *pack.Pack, v []byte, left int) int {
	all := l.tailOffsets()
	var hits []int // indexes into all, from the back
	for j := len(all) - 1; j >= 0 && len(hits) < left; j-- {
		if e, _ := p.At(all[j]); bytes.Equal(e, v) {
			hits = append(hits, j)
		}
	}
	if len(hits) == 0 {
		return 0
	}
	end, old := p.End(), p.Size()
	for _, j := range hits { // last first: the earlier offsets stay
		p.Delete(all[j], 1)
	}
	l.resized(p, old)
	// The offsets from the first deleted on: the deleted ones go, the
	// others move back by what was deleted before them. all[j+1] is read
	// before w reaches it (w <= j).
	lo := hits[len(hits)-1]
	w, shift, h := lo, 0, len(hits)-1
	for j := lo; j < len(all); j++ {
		if h >= 0 && hits[h] == j {
			next := end
			if j+1 < len(all) {
				next = all[j+1]
			}
			shift += next - all[j]
			h--
			continue
		}
		all[w] = all[j] - shift
		w++
	}
	l.tail = all[:w]
	return len(hits)
}

func (l *listValue) clone() value {
	c := &listValue{n: l.n, bytes: l.bytes, fill: l.fill, chunks: slices.Clone(l.chunks)}
	if l.shared == nil {
		l.shared = make(map[*pack.Pack]struct{}, len(l.chunks))
	}
	c.shared = make(map[*pack.Pack]struct{}, len(l.chunks))
	for _, p := range l.chunks {
		l.shared[p] = struct{}{}
		c.shared[p] = struct{}{}
	}
	return c
}
