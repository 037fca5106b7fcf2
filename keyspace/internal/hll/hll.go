// Package hll is Redis 7.0's HyperLogLog (hyperloglog.c) on the bytes of a
// string value: the 16-byte header, the sparse and dense encodings, the
// hash and the estimator, so that a value built here is byte for byte the
// one redis-server builds from the same additions.
//
// A value is client data (SET can store anything that passes the header
// check), so every reader here bounds its indexes by the slice: where
// Redis reads the sds terminator one byte past the end (an XZERO opcode cut
// in half), a read past the end is 0, as that terminator is.
package hll

import (
	"math"
	"strconv"
	"strings"
)

const (
	p         = 14
	q         = 64 - p
	Registers = 1 << p // 16384
	bits      = 6
	regMax    = 1<<bits - 1

	// HdrSize is the header: "HYLL", the encoding, 3 unused bytes and the
	// cached cardinality (little endian, its top bit set when stale).
	HdrSize = 16
	// DenseSize is the exact length of a dense value.
	DenseSize = HdrSize + (Registers*bits+7)/8

	Dense  = 0
	Sparse = 1

	sparseValMaxValue = 32
	sparseValMaxLen   = 4
	sparseZeroMaxLen  = 64
	sparseXZeroMaxLen = 16384
)

// MurmurHash64A is Redis's hash, endian neutral, with a 32-bit seed.
func MurmurHash64A(key []byte, seed uint32) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := uint64(seed) ^ uint64(len(key))*m
	n := len(key) - len(key)&7
	for i := 0; i < n; i += 8 {
		k := uint64(key[i]) | uint64(key[i+1])<<8 | uint64(key[i+2])<<16 | uint64(key[i+3])<<24 |
			uint64(key[i+4])<<32 | uint64(key[i+5])<<40 | uint64(key[i+6])<<48 | uint64(key[i+7])<<56
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if t := key[n:]; len(t) > 0 {
		for i := len(t) - 1; i >= 0; i-- {
			h ^= uint64(t[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// PatLen is hllPatLen: the register ele falls in and the length of the run
// of zeroes (plus one) in the rest of its hash.
func PatLen(ele []byte) (index int, count uint8) {
	hash := MurmurHash64A(ele, 0xadc83b19)
	index = int(hash & (Registers - 1))
	hash >>= p
	hash |= 1 << q
	count = 1
	for bit := uint64(1); hash&bit == 0; bit <<= 1 {
		count++
	}
	return index, count
}

// Valid is isHLLObjectOrReply's check of a string value.
func Valid(b []byte) bool {
	if len(b) < HdrSize || string(b[:4]) != "HYLL" || b[4] > Sparse {
		return false
	}
	return b[4] != Dense || len(b) == DenseSize
}

// Encoding is the value's encoding byte (Valid values only).
func Encoding(b []byte) byte { return b[4] }

// Invalidate marks the cached cardinality stale.
func Invalidate(b []byte) { b[15] |= 0x80 }

// Cached returns the cached cardinality when it is valid.
func Cached(b []byte) (uint64, bool) {
	if b[15]&0x80 != 0 {
		return 0, false
	}
	var c uint64
	for i := 7; i >= 0; i-- {
		c = c<<8 | uint64(b[8+i])
	}
	return c, true
}

// SetCached writes card into the header.
func SetCached(b []byte, card uint64) {
	for i := range 8 {
		b[8+i] = byte(card >> (8 * i))
	}
}

// NewSparse is createHLLObject: an empty sparse value, all XZERO opcodes.
func NewSparse() []byte {
	b := make([]byte, HdrSize, HdrSize+2*((Registers+sparseXZeroMaxLen-1)/sparseXZeroMaxLen))
	copy(b, "HYLL")
	b[4] = Sparse
	for aux := Registers; aux > 0; {
		x := min(aux, sparseXZeroMaxLen)
		b = append(b, byte((x-1)>>8)|0x40, byte(x-1))
		aux -= x
	}
	return b
}

// at is b[i], reading past the end as Redis reads its sds there: the byte
// after the last is the terminator, which is 0 unless an opcode split at
// the very end (of an XZERO cut in half) wrote over it. Values keep that
// byte in their capacity.
func at(b []byte, i int) byte {
	if i < cap(b) {
		return b[:i+1][i]
	}
	return 0
}

// grow returns b with room for n bytes, keeping the byte past its end.
func grow(b []byte, n int) []byte {
	if n <= cap(b) {
		return b
	}
	nb := make([]byte, len(b), n+8)
	copy(nb[:min(len(b)+1, cap(b))], b[:min(len(b)+1, cap(b))])
	return nb
}

// DenseGet reads register i of the registers regs (the bytes after the
// header).
func DenseGet(regs []byte, i int) uint8 {
	byt, fb := i*bits/8, uint(i*bits&7)
	return uint8((uint(regs[byt])>>fb | uint(at(regs, byt+1))<<(8-fb)) & regMax)
}

// SetRegister writes register i.
func SetRegister(regs []byte, i int, v uint8) {
	byt, fb := i*bits/8, uint(i*bits&7)
	regs[byt] &^= byte(regMax << fb)
	regs[byt] |= byte(uint(v) << fb)
	if byt+1 < len(regs) {
		regs[byt+1] &^= byte(regMax >> (8 - fb))
		regs[byt+1] |= byte(uint(v) >> (8 - fb))
	}
}

// DenseSet is hllDenseSet: raise register i to count, reporting whether
// it changed.
func DenseSet(regs []byte, i int, count uint8) bool {
	if count > DenseGet(regs, i) {
		SetRegister(regs, i, count)
		return true
	}
	return false
}

// Opcodes of the sparse encoding.
func isZero(c byte) bool  { return c&0xc0 == 0 }
func isXZero(c byte) bool { return c&0xc0 == 0x40 }
func isVal(c byte) bool   { return c&0x80 != 0 }
func zeroLen(c byte) int  { return int(c&0x3f) + 1 }
func valValue(c byte) int { return int(c>>2&0x1f) + 1 }
func valLen(c byte) int   { return int(c&3) + 1 }
func xzeroLen(b []byte, i int) int {
	return (int(b[i]&0x3f)<<8 | int(at(b, i+1))) + 1
}
func valOp(v, n int) byte { return byte((v-1)<<2|(n-1)) | 0x80 }

// SparseToDense is hllSparseToDense: the dense value with b's header
// (cached cardinality included), or false when the opcodes do not cover
// exactly every register. A dense b is returned as it is.
func SparseToDense(b []byte) ([]byte, bool) {
	if b[4] == Dense {
		return b, true
	}
	d := make([]byte, DenseSize)
	copy(d, b[:HdrSize])
	d[4] = Dense
	regs := d[HdrSize:]
	idx := 0
	for i := HdrSize; i < len(b); {
		switch c := b[i]; {
		case isZero(c):
			idx += zeroLen(c)
			i++
		case isXZero(c):
			idx += xzeroLen(b, i)
			i += 2
		default:
			n, v := valLen(c), valValue(c)
			if idx+n > Registers {
				return nil, false
			}
			for range n {
				SetRegister(regs, idx, uint8(v))
				idx++
			}
			i++
		}
	}
	return d, idx == Registers
}

// SparseSet is hllSparseSet: raise register index to count in the sparse
// value b, splitting and merging opcodes as Redis does, or promoting b to
// dense when count does not fit a VAL opcode or the value would grow past
// maxBytes. It returns the value (b, grown or shrunk, or a new dense one)
// and 1 when a register changed, 0 when not, -1 when b is corrupt (b may
// then hold changes already made, as Redis's value does).
func SparseSet(b []byte, index int, count uint8, maxBytes int64) ([]byte, int) {
	if count > sparseValMaxValue {
		return promote(b, index, count)
	}
	end := len(b)
	p, first, prev, span := HdrSize, 0, -1, 0
	for p < end {
		oplen := 1
		switch c := b[p]; {
		case isZero(c):
			span = zeroLen(c)
		case isVal(c):
			span = valLen(c)
		default:
			span = xzeroLen(b, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return b, -1
	}
	c := b[p]
	next := p + 1
	if isXZero(c) {
		next = p + 2
	}
	if next >= end {
		next = -1
	}
	var runlen int
	switch {
	case isZero(c):
		runlen = zeroLen(c)
	case isXZero(c):
		runlen = xzeroLen(b, p)
	default:
		runlen = valLen(c)
	}
	switch {
	case isVal(c) && valValue(c) >= int(count):
		return b, 0
	case isVal(c) && runlen == 1, isZero(c) && runlen == 1:
		b[p] = valOp(int(count), 1)
		return mergeVals(b, prev), 1
	}
	// Split the opcode into up to three (XZERO-VAL-XZERO at worst).
	var seq [5]byte
	n := 0
	last := first + span - 1
	zeros := func(l int) {
		if l > sparseZeroMaxLen {
			seq[n], seq[n+1] = byte((l-1)>>8)|0x40, byte(l-1)
			n += 2
		} else {
			seq[n] = byte(l - 1)
			n++
		}
	}
	if !isVal(c) {
		if index != first {
			zeros(index - first)
		}
		seq[n] = valOp(int(count), 1)
		n++
		if index != last {
			zeros(last - index)
		}
	} else {
		cur := valValue(c)
		if index != first {
			seq[n] = valOp(cur, index-first)
			n++
		}
		seq[n] = valOp(int(count), 1)
		n++
		if index != last {
			seq[n] = valOp(cur, last-index)
			n++
		}
	}
	oldlen := 1
	if isXZero(c) {
		oldlen = 2
	}
	delta := n - oldlen
	if delta > 0 && int64(len(b)+delta) > maxBytes {
		return promote(b, index, count)
	}
	// Step 3 as Redis does it: move what follows, set the new length
	// (its terminator), then write the sequence, which past an XZERO cut
	// short at the end runs over that terminator.
	newLen := len(b) + delta
	b = grow(b, newLen+2)
	full := b[:cap(b)]
	if next >= 0 {
		copy(full[next+delta:], full[next:end])
	}
	full[newLen] = 0
	copy(full[p:], seq[:n])
	b = full[:newLen]
	return mergeVals(b, prev), 1
}

// promote converts b to dense and sets the register there.
func promote(b []byte, index int, count uint8) ([]byte, int) {
	d, ok := SparseToDense(b)
	if !ok {
		return b, -1
	}
	DenseSet(d[HdrSize:], index, count)
	return d, 1
}

// mergeVals is step 4 of hllSparseSet: from the opcode before the change,
// merge up to five adjacent VAL opcodes of equal value, then mark the
// cached cardinality stale.
func mergeVals(b []byte, prev int) []byte {
	p := prev
	if p < 0 {
		p = HdrSize
	}
	for scan := 5; p < len(b) && scan > 0; {
		scan--
		switch c := b[p]; {
		case isXZero(c):
			p += 2
			continue
		case isZero(c):
			p++
			continue
		}
		if p+1 < len(b) && isVal(b[p+1]) {
			v1, v2 := valValue(b[p]), valValue(b[p+1])
			if l := valLen(b[p]) + valLen(b[p+1]); v1 == v2 && l <= sparseValMaxLen {
				b[p+1] = valOp(v1, l)
				full := b[:cap(b)]
				copy(full[p:], full[p+1:len(b)])
				full[len(b)-1] = 0
				b = b[:len(b)-1]
				continue
			}
		}
		p++
	}
	Invalidate(b)
	return b
}

// Add is hllAdd: add ele to b (dense or sparse), with SparseSet's results.
func Add(b []byte, ele []byte, maxBytes int64) ([]byte, int) {
	index, count := PatLen(ele)
	if b[4] == Dense {
		if DenseSet(b[HdrSize:], index, count) {
			return b, 1
		}
		return b, 0
	}
	return SparseSet(b, index, count, maxBytes)
}

// histogram counts the registers of each value; false for a sparse value
// that does not cover exactly every register.
func histogram(b []byte, h *[64]int) bool {
	if b[4] == Dense {
		regs := b[HdrSize:]
		for i := range Registers {
			h[DenseGet(regs, i)]++
		}
		return true
	}
	idx := 0
	for i := HdrSize; i < len(b); {
		switch c := b[i]; {
		case isZero(c):
			n := zeroLen(c)
			idx += n
			h[0] += n
			i++
		case isXZero(c):
			n := xzeroLen(b, i)
			idx += n
			h[0] += n
			i += 2
		default:
			n := valLen(c)
			idx += n
			h[valValue(c)] += n
			i++
		}
	}
	return idx == Registers
}

// Count is hllCount on a value: its estimated cardinality, false when it
// is a corrupt sparse value.
func Count(b []byte) (uint64, bool) {
	var h [64]int
	if !histogram(b, &h) {
		return 0, false
	}
	return estimate(&h), true
}

// CountRaw estimates the cardinality of one byte per register (the union
// PFCOUNT builds).
func CountRaw(regs *[Registers]uint8) uint64 {
	var h [64]int
	for _, r := range regs {
		h[r&63]++
	}
	return estimate(&h)
}

// estimate is Otmar Ertl's estimator as hllCount computes it.
func estimate(h *[64]int) uint64 {
	const m = float64(Registers)
	const alphaInf = 0.721347520444481703680
	z := m * tau((m-float64(h[q+1]))/m)
	for j := q; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += m * sigma(float64(h[0])/m)
	return uint64(int64(math.Round(alphaInf * m * m / z)))
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zp := z
		z += x * y
		y += y
		if zp == z {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zp := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if zp == z {
			return z / 3
		}
	}
}

// Merge is hllMerge: raise max to b's registers; false when b is a corrupt
// sparse value.
func Merge(max *[Registers]uint8, b []byte) bool {
	if b[4] == Dense {
		regs := b[HdrSize:]
		for i := range Registers {
			if v := DenseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return true
	}
	idx := 0
	for i := HdrSize; i < len(b); {
		switch c := b[i]; {
		case isZero(c):
			idx += zeroLen(c)
			i++
		case isXZero(c):
			idx += xzeroLen(b, i)
			i += 2
		default:
			n, v := valLen(c), uint8(valValue(c))
			if idx+n > Registers {
				return false
			}
			for range n {
				if v > max[idx] {
					max[idx] = v
				}
				idx++
			}
			i++
		}
	}
	return idx == Registers
}

// Decode is PFDEBUG DECODE's text of a sparse value's opcodes.
func Decode(b []byte) string {
	var s strings.Builder
	for i := HdrSize; i < len(b); {
		switch c := b[i]; {
		case isZero(c):
			s.WriteString("z:" + strconv.Itoa(zeroLen(c)) + " ")
			i++
		case isXZero(c):
			s.WriteString("Z:" + strconv.Itoa(xzeroLen(b, i)) + " ")
			i += 2
		default:
			s.WriteString("v:" + strconv.Itoa(valValue(c)) + "," + strconv.Itoa(valLen(c)) + " ")
			i++
		}
	}
	return strings.Trim(s.String(), " ")
}
