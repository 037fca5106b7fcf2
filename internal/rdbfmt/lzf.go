package rdbfmt

import (
	"math"
	"sync"
)

// LZF as Redis 7.0 builds it (lzf_c.c, lzf_d.c, lzfP.h: HLOG 16,
// VERY_FAST, CHECK_INPUT). Redis leaves the compressor's hash table
// uninitialised (INIT_HTAB 0); stale entries can only add matches that a
// fresh table does not find, so this port, which starts from an empty
// table, writes what Redis writes whenever Redis's table holds nothing of
// an earlier input that matches this one.

const (
	hlog   = 16
	hsize  = 1 << hlog
	maxLit = 1 << 5
	maxOff = 1 << 13
	maxRef = 1<<8 + 1<<3
)

func lzfIdx(h uint32) uint32 { return ((h >> (3*8 - hlog)) - h*5) & (hsize - 1) }

// lzfTable is the compressor's hash table, kept between calls: a fresh
// 256 KiB table per string made FUNCTION DUMP of 10,000 small libraries
// allocate and zero 2.5 GB (1.8 s; Redis keeps its table on the stack,
// uninitialised). Positions are stored plus base, which grows by each
// input's length, so an entry of an earlier input reads as empty without
// clearing the table.
type lzfTable struct {
	htab [hsize]int32
	base int32
}

var lzfTables = sync.Pool{New: func() any { return new(lzfTable) }}

// Compress is lzf_compress: it writes in's compressed form into out and
// returns its length, or 0 when it does not fit in out.
func Compress(in, out []byte) int {
	if len(in) == 0 || len(out) == 0 {
		return 0
	}
	t := lzfTables.Get().(*lzfTable)
	defer lzfTables.Put(t)
	return t.compress(in, out)
}

func (t *lzfTable) compress(in, out []byte) int {
	inLen, outLen := len(in), len(out)
	// Positions are stored plus one (and base), so 0 means empty (Redis
	// stores offsets from the input and treats 0 as none: position 0 is
	// never a candidate either, "ref > in_data").
	if int64(t.base)+int64(inLen)+1 > math.MaxInt32 {
		clear(t.htab[:])
		t.base = 0
	}
	htab, base := &t.htab, t.base
	t.base += int32(inLen) + 1
	ip, op := 0, 0
	lit := 0
	op++ // start run
	hval := uint32(in[0])<<8 | uint32(in[1%inLen])
	for ip < inLen-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := &htab[lzfIdx(hval)]
		ref := int(*slot-base) - 1 // -1 or less: empty, or an earlier input's
		*slot = base + int32(ip+1)
		if ref > 0 && ref < ip && ip-ref-1 < maxOff &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			off := ip - ref - 1
			maxlen := inLen - ip - 2
			if maxlen > maxRef {
				maxlen = maxRef
			}
			if op+3+1 >= outLen {
				nl := 0
				if lit == 0 {
					nl = 1
				}
				if op-nl+3+1 >= outLen {
					return 0
				}
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			if lit == 0 {
				op-- // undo run if length is zero
			}
			length := matchLen(in, ref, ip, maxlen)
			length -= 2 // length is now #octets - 1
			ip++
			if length < 7 {
				out[op] = byte(off>>8 + length<<5)
				op++
			} else {
				out[op] = byte(off>>8 + 7<<5)
				out[op+1] = byte(length - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += length + 1
			if ip >= inLen-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			htab[lzfIdx(hval)] = base + int32(ip+1)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab[lzfIdx(hval)] = base + int32(ip+1)
			ip++
		} else {
			if op >= outLen {
				return 0
			}
			lit++
			out[op] = in[ip]
			op++
			ip++
			if lit == maxLit {
				out[op-lit-1] = byte(lit - 1)
				lit = 0
				op++
			}
		}
	}
	if op+3 > outLen {
		return 0
	}
	for ip < inLen {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == maxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return op
}

// Decompress is lzf_decompress into exactly n bytes: ok is false unless in
// decodes to n bytes. The output grows with what is decoded, never by n
// alone (n comes from a header and may be anything).
func Decompress(in []byte, n uint64) ([]byte, bool) {
	if n == 0 {
		// lzf_decompress fails (returns 0) on any input into no room,
		// which rdbLoadLzfStringObject takes for the 0 bytes it wanted.
		return []byte{}, true
	}
	// A back reference of 3 input bytes yields at most 264 output bytes.
	if n > uint64(len(in))*88+32 {
		return nil, false
	}
	out := make([]byte, 0, min(n, uint64(len(in))*4+64))
	ip := 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 {
			ctrl++
			if uint64(len(out)+ctrl) > n || ip+ctrl > len(in) {
				return nil, false
			}
			out = append(out, in[ip:ip+ctrl]...)
			ip += ctrl
			continue
		}
		length := ctrl >> 5
		ref := len(out) - (ctrl&0x1f)<<8 - 1
		if ip >= len(in) {
			return nil, false
		}
		if length == 7 {
			length += int(in[ip])
			ip++
			if ip >= len(in) {
				return nil, false
			}
		}
		ref -= int(in[ip])
		ip++
		if uint64(len(out)+length+2) > n || ref < 0 {
			return nil, false
		}
		for i := 0; i < length+2; i++ {
			out = append(out, out[ref+i])
		}
	}
	return out, uint64(len(out)) == n
}

// matchLen is lzf_compress's match extension, its unrolled first sixteen
// steps included: they compare without the bound, so near the end of the
// input a match may run two bytes past maxlen, as Redis's does.
func matchLen(in []byte, ref, ip, maxlen int) int {
	length := 2
	if maxlen > 16 {
		for k := 0; k < 16; k++ {
			length++
			if in[ref+length] != in[ip+length] {
				return length
			}
		}
	}
	for {
		length++
		if length >= maxlen || in[ref+length] != in[ip+length] {
			return length
		}
	}
}
