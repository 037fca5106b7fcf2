package keyspace

import "encoding/binary"

// hpack is a small hash's fields and values, pair after pair in one
// []byte (Redis's listpack encoding of a hash). A pair is a header, the
// field's bytes, then the value's. The header is one byte, the field's
// length in its high four bits and the value's in its low four, when both
// are under 16 bytes (short fields and values are what small hashes hold:
// a reentrant lock's holder and count, a lease's fields); otherwise 0xff
// then both lengths as uvarints (0xff itself, 15 and 15, takes that form
// too). A listpack spends four bytes on a pair's encodings and backlens,
// minilock's pack two; this one.
type hpack struct {
	b []byte
	n int // pairs
}

// hpackLong marks a pair header whose lengths follow as uvarints.
const hpackLong = 0xff

// pairSize is the bytes a pair of lengths fl and vl takes.
func pairSize(fl, vl int) int {
	if fl < 16 && vl < 16 && fl<<4|vl != hpackLong {
		return 1 + fl + vl
	}
	return 1 + uvarintLen(fl) + uvarintLen(vl) + fl + vl
}

func uvarintLen(n int) int {
	w := 1
	for ; n >= 0x80; n >>= 7 {
		w++
	}
	return w
}

// appendPair appends the pair f, v to dst.
func appendPair(dst, f, v []byte) []byte {
	if len(f) < 16 && len(v) < 16 && len(f)<<4|len(v) != hpackLong {
		dst = append(dst, byte(len(f)<<4|len(v)))
	} else {
		dst = append(dst, hpackLong)
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = binary.AppendUvarint(dst, uint64(len(v)))
	}
	return append(append(dst, f...), v...)
}

func (p *hpack) len() int  { return p.n }
func (p *hpack) size() int { return cap(p.b) }
func (p *hpack) end() int  { return len(p.b) }

// at returns the pair at off and the offset after it. The slices are the
// pack's: valid until it changes.
func (p *hpack) at(off int) (f, v []byte, next int) {
	i := off + 1
	fl, vl := int(p.b[off]>>4), int(p.b[off]&15)
	if p.b[off] == hpackLong {
		x, w := binary.Uvarint(p.b[i:])
		i += w
		y, w := binary.Uvarint(p.b[i:])
		i += w
		fl, vl = int(x), int(y)
	}
	f = p.b[i : i+fl : i+fl]
	i += fl
	return f, p.b[i : i+vl : i+vl], i + vl
}

// find returns the offset of field's pair, or -1.
func (p *hpack) find(field []byte) int {
	for off := 0; off < len(p.b); {
		f, _, next := p.at(off)
		if string(f) == string(field) {
			return off
		}
		off = next
	}
	return -1
}

// offset returns the offset of pair i (0-based).
func (p *hpack) offset(i int) int {
	off := 0
	for ; i > 0; i-- {
		_, _, off = p.at(off)
	}
	return off
}

// grow makes room for need more bytes, to the allocator's size class
// that holds them (as pack.Pack grows).
func (p *hpack) grow(need int) {
	if cap(p.b)-len(p.b) >= need {
		return
	}
	nb := append([]byte(nil), make([]byte, len(p.b)+need)...)
	p.b = nb[:copy(nb, p.b)]
}

// add appends the pair f, v.
func (p *hpack) add(f, v []byte) {
	p.grow(pairSize(len(f), len(v)))
	p.b = appendPair(p.b, f, v)
	p.n++
}

// setValue makes the value of the pair at off v.
func (p *hpack) setValue(off int, v []byte) {
	f, old, next := p.at(off)
	if len(old) == len(v) {
		copy(old, v) // the header stays
		return
	}
	var scratch [64]byte
	pair := appendPair(scratch[:0], f, v) // f is the pack's: copied first
	p.splice(off, next, pair)
}

// remove deletes the pair at off.
func (p *hpack) remove(off int) {
	_, _, next := p.at(off)
	p.splice(off, next, nil)
	p.n--
	if cap(p.b) > 64 && len(p.b) < cap(p.b)/4 {
		p.b = append([]byte(nil), p.b...) // give back what a shrink left
	}
}

// splice replaces the bytes from..to with with.
func (p *hpack) splice(from, to int, with []byte) {
	if grow := len(with) - (to - from); grow > 0 {
		p.grow(grow)
		p.b = p.b[:len(p.b)+grow]
		copy(p.b[to+grow:], p.b[to:len(p.b)-grow])
	} else if grow < 0 {
		copy(p.b[to+grow:], p.b[to:])
		p.b = p.b[:len(p.b)+grow]
	}
	copy(p.b[from:], with)
}

func (p *hpack) clone() hpack { return hpack{b: append([]byte(nil), p.b...), n: p.n} }
