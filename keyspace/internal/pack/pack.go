// Package pack is minilock's listpack: a sequence of byte strings kept in
// one []byte, each entry its length as a uvarint and then its bytes. Small
// hashes, sets and sorted sets and every list chunk use it, so that a
// small collection costs about the bytes of its elements (as Redis's
// listpack and ziplist do) rather than an allocation and a header each.
//
// Entries are reached by offset: Next walks from one to the next; an
// offset stays valid until the pack changes before it. Every operation
// but Append and the walk is linear in the pack's size, which is why
// collections convert to a real index past a small threshold.
package pack

import (
	"encoding/binary"
)

// Pack is the sequence. The zero Pack is empty and ready to use.
type Pack struct {
	b []byte
	n int // entries
}

// Len is the number of entries.
func (p *Pack) Len() int { return p.n }

// Size is the bytes the pack holds (its capacity).
func (p *Pack) Size() int { return cap(p.b) }

// End is the offset past the last entry: a walk stops there.
func (p *Pack) End() int { return len(p.b) }

// At returns the entry at off and the offset of the next one. An entry
// under 128 bytes, the usual, is read inline.
func (p *Pack) At(off int) (v []byte, next int) {
	if b := p.b[off:]; b[0] < 0x80 {
		n := 1 + int(b[0])
		return b[1:n:n], off + n
	}
	return p.atLong(off)
}

func (p *Pack) atLong(off int) (v []byte, next int) {
	n, w := p.header(off)
	start := off + w
	end := start + int(n)
	return p.b[start:end:end], end
}

// room makes space for need more bytes at the end of p.b. A pack grows to
// the allocator's size class that holds it and no further, as Redis's
// listpacks are realloc'd to their size (rounded to jemalloc's classes):
// a keyspace of many small collections then holds about the bytes of
// their elements. Go's classes are at most an eighth apart up to 32 KiB
// and whole pages past it, so the copies stay amortised O(1) per byte.
func (p *Pack) room(need int) {
	if cap(p.b)-len(p.b) >= need {
		return
	}
	// Appending to a nil slice rounds the capacity up to the allocator's
	// size class, so no byte of the allocation is left unusable.
	nb := append([]byte(nil), make([]byte, len(p.b)+need)...)
	p.b = nb[:copy(nb, p.b)]
}

// Grow makes room for n more bytes, so that the entries a command is about
// to add (EntrySize each) take one allocation of the right size, instead
// of one per size class on the way, which would leave the pack's earlier
// allocations as garbage between other packs.
func (p *Pack) Grow(n int) { p.room(n) }

// EntrySize is the bytes an entry of n bytes takes in a pack.
func EntrySize(n int) int { return headerLen(n) + n }

// headerLen is the width of the header of an entry of n bytes.
func headerLen(n int) int {
	w := 1
	for ; n >= 0x80; n >>= 7 {
		w++
	}
	return w
}

// Bytes returns the pack's bytes from..to, as At's offsets and lengths
// locate them.
func (p *Pack) Bytes(from, to int) []byte { return p.b[from:to:to] }

// header reads the length of the entry at off and the width of that
// length: one byte for an entry under 128 bytes, the usual case, without
// binary.Uvarint's loop.
func (p *Pack) header(off int) (n uint64, w int) {
	if b := p.b[off]; b < 0x80 {
		return uint64(b), 1
	}
	return binary.Uvarint(p.b[off:])
}

// Append adds v at the end.
func (p *Pack) Append(v []byte) {
	p.room(headerLen(len(v)) + len(v))
	p.b = binary.AppendUvarint(p.b, uint64(len(v)))
	p.b = append(p.b, v...)
	p.n++
}

// AppendPair adds a and b at the end, growing the pack once for both.
func (p *Pack) AppendPair(a, b []byte) {
	p.room(headerLen(len(a)) + len(a) + headerLen(len(b)) + len(b))
	p.b = binary.AppendUvarint(p.b, uint64(len(a)))
	p.b = append(p.b, a...)
	p.b = binary.AppendUvarint(p.b, uint64(len(b)))
	p.b = append(p.b, b...)
	p.n += 2
}

// Insert adds v before the entry at off (End appends).
func (p *Pack) Insert(off int, v []byte) { p.insert(off, v, nil, 1) }

// InsertPair adds a and then b before the entry at off, moving the
// entries after it once.
func (p *Pack) InsertPair(off int, a, b []byte) { p.insert(off, a, b, 2) }

// InsertJoined adds one entry, a followed by b, before the entry at off.
func (p *Pack) InsertJoined(off int, a, b []byte) { p.insert(off, a, b, 0) }

// AppendJoined adds one entry, a followed by b, at the end.
func (p *Pack) AppendJoined(a, b []byte) { p.insert(len(p.b), a, b, 0) }

// insert adds a and b as count entries (0: one entry of both) at off.
func (p *Pack) insert(off int, a, b []byte, count int) {
	need := EntrySize(len(a)) + EntrySize(len(b))
	switch count {
	case 0:
		need = EntrySize(len(a) + len(b))
	case 1:
		need = EntrySize(len(a))
	}
	p.room(need)
	p.b = p.b[:len(p.b)+need]
	copy(p.b[off+need:], p.b[off:len(p.b)-need])
	switch count {
	case 0:
		at := off + binary.PutUvarint(p.b[off:], uint64(len(a)+len(b)))
		copy(p.b[at+copy(p.b[at:], a):], b)
		p.n++
	default:
		at := off + binary.PutUvarint(p.b[off:], uint64(len(a)))
		at += copy(p.b[at:], a)
		if count == 2 {
			at += binary.PutUvarint(p.b[at:], uint64(len(b)))
			copy(p.b[at:], b)
		}
		p.n += count
	}
}

// Replace makes the entry at off v, and returns the offset after it.
func (p *Pack) Replace(off int, v []byte) int {
	_, next := p.At(off)
	var hdr [binary.MaxVarintLen64]byte
	w := binary.PutUvarint(hdr[:], uint64(len(v)))
	need := w + len(v)
	if grow := need - (next - off); grow > 0 {
		p.room(grow)
		p.b = p.b[:len(p.b)+grow]
		copy(p.b[next+grow:], p.b[next:len(p.b)-grow])
	} else if grow < 0 {
		copy(p.b[next+grow:], p.b[next:])
		p.b = p.b[:len(p.b)+grow]
	}
	copy(p.b[off:], hdr[:w])
	copy(p.b[off+w:], v)
	return off + need
}

// Delete removes count entries starting at off.
func (p *Pack) Delete(off, count int) {
	end := off
	for i := 0; i < count && end < len(p.b); i++ {
		_, end = p.At(end)
		p.n--
	}
	p.b = append(p.b[:off], p.b[end:]...)
	if cap(p.b) > 64 && len(p.b) < cap(p.b)/4 {
		p.b = append([]byte(nil), p.b...) // give back what a shrink left
	}
}

// DeleteIf removes the entries for which drop returns true, calling it
// once for each entry in order, and returns how many it removed; after
// max removals (0: no bound) it stops looking. It moves each run of kept
// entries once, so removing many entries costs one pass over the pack
// where as many Deletes would cost one each.
func (p *Pack) DeleteIf(max int, drop func(v []byte) bool) int {
	w, removed := 0, 0
	keep := 0 // start of the run of kept entries not moved yet
	off := 0
	for off < len(p.b) && (max == 0 || removed < max) {
		v, next := p.At(off)
		if drop(v) {
			w += copy(p.b[w:], p.b[keep:off])
			keep = next
			removed++
		}
		off = next
	}
	if removed == 0 {
		return 0
	}
	w += copy(p.b[w:], p.b[keep:])
	p.n -= removed
	p.b = p.b[:w]
	if cap(p.b) > 64 && len(p.b) < cap(p.b)/4 {
		p.b = append([]byte(nil), p.b...) // give back what a shrink left
	}
	return removed
}

// Find returns the offset of the first entry equal to v among every
// stride-th entry from the first (stride 2 searches the fields of
// field-value pairs), or -1.
func (p *Pack) Find(v []byte, stride int) int {
	for off, i := 0, 0; off < len(p.b); i++ {
		n, w := p.header(off)
		start := off + w
		end := start + int(n)
		// Lengths first: most entries are rejected without touching
		// their bytes.
		if i%stride == 0 && int(n) == len(v) && string(p.b[start:end]) == string(v) {
			return off
		}
		off = end
	}
	return -1
}

// Offset returns the offset of entry i (0-based), or End when i is Len.
func (p *Pack) Offset(i int) int {
	off := 0
	for ; i > 0; i-- {
		_, off = p.At(off)
	}
	return off
}

// Clone returns a copy of p.
func (p *Pack) Clone() Pack { return Pack{b: append([]byte(nil), p.b...), n: p.n} }
