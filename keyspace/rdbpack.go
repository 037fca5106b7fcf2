package keyspace

import (
	"encoding/binary"
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/intset"
)

// The packed encodings inside RDB values: Redis's listpack (listpack.c),
// which 7.0 writes, and the ziplist (ziplist.c) and zipmap (zipmap.c) that
// older versions wrote and a 7.0 RESTORE still takes, and the intset blob.
// Readers validate as Redis's deep sanitization does and return each
// element as a string (an integer element as its decimal text).

// listpack builds a listpack, element by element (lpAppend).
type listpack struct {
	b []byte // header reserved, then the entries
	n int
}

const lpHeader = 6

func (lp *listpack) add(s []byte) {
	if lp.b == nil {
		lp.b = make([]byte, lpHeader, 64)
	}
	start := len(lp.b)
	if v, ok := lpInt(s); ok {
		lp.b = appendLPInt(lp.b, v)
	} else {
		n := len(s)
		switch {
		case n < 64:
			lp.b = append(lp.b, 0x80|byte(n))
		case n < 4096:
			lp.b = append(lp.b, 0xe0|byte(n>>8), byte(n))
		default:
			lp.b = append(lp.b, 0xf0)
			lp.b = binary.LittleEndian.AppendUint32(lp.b, uint32(n))
		}
		lp.b = append(lp.b, s...)
	}
	lp.b = appendBacklen(lp.b, uint64(len(lp.b)-start))
	lp.n++
}

// addInt appends an integer element (lpAppendInteger).
func (lp *listpack) addInt(v int64) {
	if lp.b == nil {
		lp.b = make([]byte, lpHeader, 64)
	}
	start := len(lp.b)
	lp.b = appendLPInt(lp.b, v)
	lp.b = appendBacklen(lp.b, uint64(len(lp.b)-start))
	lp.n++
}

// size is lpBytes so far (with the end byte).
func (lp *listpack) size() int {
	if lp.b == nil {
		return lpHeader + 1
	}
	return len(lp.b) + 1
}

// bytes finishes the listpack: header and end byte.
func (lp *listpack) bytes() []byte {
	if lp.b == nil {
		lp.b = make([]byte, lpHeader, lpHeader+1)
	}
	b := append(lp.b, 0xff)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], uint16(min(lp.n, 65535)))
	lp.b = nil
	return b
}

// lpInt is lpStringToInt64: s is an integer's canonical text.
func lpInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) >= 21 {
		return 0, false
	}
	return redisstr.ParseInt(s)
}

func appendLPInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(b, byte(v))
	case v >= -4096 && v <= 4095:
		uv := uint64(v)
		if v < 0 {
			uv = uint64(1<<13 + v)
		}
		return append(b, byte(uv>>8)|0xc0, byte(uv))
	case v >= -32768 && v <= 32767:
		return append(b, 0xf1, byte(v), byte(v>>8))
	case v >= -8388608 && v <= 8388607:
		return append(b, 0xf2, byte(v), byte(v>>8), byte(v>>16))
	case v >= -2147483648 && v <= 2147483647:
		return binary.LittleEndian.AppendUint32(append(b, 0xf3), uint32(v))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xf4), uint64(v))
}

// appendBacklen is lpEncodeBacklen.
func appendBacklen(b []byte, l uint64) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
}

func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// lpElem is one element read from a listpack: a string, or an integer
// (isInt) kept as its value.
type lpElem struct {
	s     []byte // aliases the listpack for a string
	v     int64
	isInt bool
}

// text is the element as Redis's lpGet gives it to a caller that wants
// a string: an integer in decimal.
func (e lpElem) text() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.v, 10)
	}
	return e.s
}

// integer is lpGetIntegerIfValid.
func (e lpElem) integer() (int64, bool) {
	if e.isInt {
		return e.v, true
	}
	return redisstr.ParseInt(e.s)
}

// readListpack validates b as a whole listpack (lpValidateIntegrity, deep)
// and calls f for each element; f returning false stops with an error.
func readListpack(b []byte, f func(e lpElem) bool) bool {
	if len(b) < lpHeader+1 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xff {
		return false
	}
	want := int(binary.LittleEndian.Uint16(b[4:]))
	n := 0
	p := lpHeader
	end := len(b) - 1
	for p < end {
		var e lpElem
		c := b[p]
		var hdr, dlen int
		switch {
		case c&0x80 == 0:
			hdr, e.isInt, e.v = 1, true, int64(c&0x7f)
		case c&0xc0 == 0x80:
			hdr, dlen = 1, int(c&0x3f)
		case c&0xe0 == 0xc0:
			if p+2 > end {
				return false
			}
			uv := int64(c&0x1f)<<8 | int64(b[p+1])
			if uv >= 1<<12 {
				uv -= 1 << 13
			}
			hdr, e.isInt, e.v = 2, true, uv
		case c&0xf0 == 0xe0:
			if p+2 > end {
				return false
			}
			hdr, dlen = 2, int(c&0x0f)<<8|int(b[p+1])
		case c == 0xf0:
			if p+5 > end {
				return false
			}
			hdr, dlen = 5, int(binary.LittleEndian.Uint32(b[p+1:]))
		case c >= 0xf1 && c <= 0xf4:
			w := [...]int{2, 3, 4, 8}[c-0xf1]
			if p+1+w > end {
				return false
			}
			var u uint64
			for i := w - 1; i >= 0; i-- {
				u = u<<8 | uint64(b[p+1+i])
			}
			sh := 64 - 8*w
			hdr, e.isInt, e.v = 1+w, true, int64(u<<sh)>>sh
		default:
			return false
		}
		l := hdr + dlen
		if dlen > end-p-hdr {
			return false
		}
		if !e.isInt {
			e.s = b[p+hdr : p+l : p+l]
		}
		bl := backlenSize(l)
		if p+l+bl > end {
			return false
		}
		// The back-length must read back as the entry's size.
		var back uint64
		for i := 0; i < bl; i++ {
			back = back<<7 | uint64(b[p+l+i]&127)
		}
		if back != uint64(l) {
			return false
		}
		p += l + bl
		n++
		if !f(e) {
			return false
		}
	}
	return want == 65535 || want == n
}

// listpackStrings reads a listpack's elements as strings.
func listpackStrings(b []byte) ([][]byte, bool) {
	var out [][]byte
	ok := readListpack(b, func(e lpElem) bool { out = append(out, e.text()); return true })
	return out, ok
}

// readZiplist validates b as a ziplist (ziplistValidateIntegrity, deep)
// and returns its elements as strings.
func readZiplist(b []byte) ([][]byte, bool) {
	const hdr = 10
	if len(b) < hdr+1 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xff {
		return nil, false
	}
	tail := int(binary.LittleEndian.Uint32(b[4:]))
	want := int(binary.LittleEndian.Uint16(b[8:]))
	end := len(b) - 1
	var out [][]byte
	p, prev, last := hdr, 0, hdr
	for p < end {
		start := p
		var plen int
		if b[p] < 254 {
			plen = int(b[p])
			p++
		} else if b[p] == 254 {
			if p+5 > end {
				return nil, false
			}
			plen = int(binary.LittleEndian.Uint32(b[p+1:]))
			p += 5
		} else {
			return nil, false
		}
		if plen != prev || p >= end {
			return nil, false
		}
		c := b[p]
		var s []byte
		switch {
		case c>>6 == 0:
			n := int(c & 0x3f)
			p++
			if n > end-p {
				return nil, false
			}
			s, p = b[p:p+n], p+n
		case c>>6 == 1:
			if p+2 > end {
				return nil, false
			}
			n := int(c&0x3f)<<8 | int(b[p+1])
			p += 2
			if n > end-p {
				return nil, false
			}
			s, p = b[p:p+n], p+n
		case c>>6 == 2:
			if p+5 > end {
				return nil, false
			}
			n := int(binary.BigEndian.Uint32(b[p+1:]))
			p += 5
			if n > end-p {
				return nil, false
			}
			s, p = b[p:p+n], p+n
		default:
			var w int
			switch {
			case c == 0xc0:
				w = 2
			case c == 0xd0:
				w = 4
			case c == 0xe0:
				w = 8
			case c == 0xf0:
				w = 3
			case c == 0xfe:
				w = 1
			case c >= 0xf1 && c <= 0xfd:
				w = 0
			default:
				return nil, false
			}
			p++
			if w > end-p {
				return nil, false
			}
			var v int64
			if w == 0 {
				v = int64(c&0x0f) - 1
			} else {
				var u uint64
				for i := w - 1; i >= 0; i-- {
					u = u<<8 | uint64(b[p+i])
				}
				sh := 64 - 8*w
				v = int64(u<<sh) >> sh
			}
			p += w
			s = strconv.AppendInt(nil, v, 10)
		}
		out = append(out, s)
		prev, last = p-start, start
	}
	if tail != last || want != 65535 && want != len(out) {
		return nil, false
	}
	return out, true
}

// readZipmap validates b as a zipmap (zipmapValidateIntegrity) and
// returns its fields and values, pair after pair.
func readZipmap(b []byte) ([][]byte, bool) {
	if len(b) < 2 || b[len(b)-1] != 0xff {
		return nil, false
	}
	end := len(b) - 1
	p := 1
	readLen := func() (int, bool) {
		if p >= end {
			return 0, false
		}
		if b[p] < 254 {
			p++
			return int(b[p-1]), true
		}
		if b[p] == 254 && p+5 <= end {
			n := int(binary.LittleEndian.Uint32(b[p+1:]))
			p += 5
			return n, true
		}
		return 0, false
	}
	var out [][]byte
	for p < end {
		kl, ok := readLen()
		if !ok || kl > end-p {
			return nil, false
		}
		k := b[p : p+kl]
		p += kl
		vl, ok := readLen()
		if !ok || p >= end {
			return nil, false
		}
		free := int(b[p])
		p++
		if vl > end-p || free > end-p-vl {
			return nil, false
		}
		out = append(out, k, b[p:p+vl])
		p += vl + free
	}
	if p != end {
		return nil, false
	}
	if n := int(b[0]); n < 254 && n != len(out)/2 {
		return nil, false
	}
	return out, true
}

// intsetBlob is the intset as Redis lays it out: its width, its length,
// then the members, little-endian.
func intsetBlob(s *intset.Set) []byte {
	w := s.Width()
	n := s.Len()
	b := make([]byte, 8, 8+w*n)
	binary.LittleEndian.PutUint32(b, uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	for i := 0; i < n; i++ {
		v := s.At(i)
		switch w {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// readIntset validates an intset blob (intsetValidateIntegrity, deep:
// members strictly ascending, none missing) and returns its width and
// members.
func readIntset(b []byte) (int, []int64, bool) {
	if len(b) < 8 {
		return 0, nil, false
	}
	w := int(binary.LittleEndian.Uint32(b))
	if w != 2 && w != 4 && w != 8 {
		return 0, nil, false
	}
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	if n == 0 || n*uint64(w)+8 != uint64(len(b)) {
		return 0, nil, false
	}
	out := make([]int64, n)
	for i := range out {
		p := b[8+i*w:]
		switch w {
		case 2:
			out[i] = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			out[i] = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			out[i] = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && out[i] <= out[i-1] {
			return 0, nil, false
		}
	}
	return w, out, true
}
