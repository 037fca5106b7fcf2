// Package rdbfmt reads and writes the parts of Redis's RDB format that a
// DUMP payload of functions uses (rdb.c, lzf_c.c, lzf_d.c, crc64.c of Redis
// 7.0.15): lengths, strings (plain, integer-encoded and LZF-compressed),
// the payload footer (RDB version and CRC64).
//
// Reading never allocates by what a header claims: a length is checked
// against the bytes that remain before anything is made for it, and LZF
// output grows only with the data it decodes.
package rdbfmt

import (
	"encoding/binary"
	"strconv"
)

// Version is the RDB version Redis 7.0 writes (RDB_VERSION).
const Version = 10

// Opcodes of the function records (rdb.h).
const (
	OpFunction2 = 245 // RDB_OPCODE_FUNCTION2: the library code as one string
	OpFunction  = 246 // RDB_OPCODE_FUNCTION: 7.0-rc1/rc2's name, engine, description, code
)

// AppendLen appends rdbSaveLen's encoding of n.
func AppendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		b = append(b, 0x80)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, 0x81)
	return binary.BigEndian.AppendUint64(b, n)
}

// AppendString appends rdbSaveRawString's encoding of s with
// rdbcompression on (Redis's default): an integer encoding for a short
// decimal, LZF when it saves at least four bytes, else plain.
func AppendString(b []byte, s []byte) []byte { return appendString(b, s, Compress) }

// An Encoder appends strings as AppendString does, with one compression
// table for all of them: a dump of many strings (FUNCTION DUMP) takes its
// 256 KiB table once, not once per string from a sync.Pool, which the race
// detector empties at random (a dump of 10,000 libraries then allocated
// 650 MB under -race).
//
// Plain turns compression off (rdbcompression no): strings are then
// written integer-encoded or as they are.
type Encoder struct {
	t     *lzfTable
	Plain bool
}

// AppendString is AppendString with e's table.
func (e *Encoder) AppendString(b []byte, s []byte) []byte {
	return appendString(b, s, func(in, out []byte) int {
		if e.Plain {
			return 0
		}
		if e.t == nil {
			e.t = new(lzfTable)
		}
		return e.t.compress(in, out)
	})
}

func appendString(b []byte, s []byte, compress func(in, out []byte) int) []byte {
	if len(s) <= 11 {
		if v, ok := intEncodable(s); ok {
			switch {
			case v >= -(1<<7) && v <= 1<<7-1:
				return append(b, 0xc0, byte(int8(v)))
			case v >= -(1<<15) && v <= 1<<15-1:
				return binary.LittleEndian.AppendUint16(append(b, 0xc1), uint16(int16(v)))
			case v >= -(1<<31) && v <= 1<<31-1:
				return binary.LittleEndian.AppendUint32(append(b, 0xc2), uint32(int32(v)))
			}
		}
	}
	if len(s) > 20 {
		out := make([]byte, len(s)-4)
		if n := compress(s, out); n > 0 {
			b = append(b, 0xc3)
			b = AppendLen(b, uint64(n))
			b = AppendLen(b, uint64(len(s)))
			return append(b, out[:n]...)
		}
	}
	b = AppendLen(b, uint64(len(s)))
	return append(b, s...)
}

// intEncodable is rdbTryIntegerEncoding's test: s is the canonical decimal
// form of a 64-bit integer (string2ll, then ll2string gives s back).
func intEncodable(s []byte) (int64, bool) {
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != string(s) {
		return 0, false
	}
	return v, true
}

// Reader reads an RDB byte stream held in memory.
type Reader struct {
	B   []byte
	Pos int
}

// Remaining is how many bytes are left.
func (r *Reader) Remaining() int { return len(r.B) - r.Pos }

// Byte reads one byte.
func (r *Reader) Byte() (byte, bool) {
	if r.Pos >= len(r.B) {
		return 0, false
	}
	c := r.B[r.Pos]
	r.Pos++
	return c, true
}

func (r *Reader) take(n uint64) ([]byte, bool) {
	if n > uint64(r.Remaining()) {
		return nil, false
	}
	s := r.B[r.Pos : r.Pos+int(n)]
	r.Pos += int(n)
	return s, true
}

// Len reads a length (rdbLoadLenByRef); encoded is true for the special
// string encodings (RDB_ENCVAL), whose type is then the value.
func (r *Reader) Len() (n uint64, encoded, ok bool) {
	c, ok := r.Byte()
	if !ok {
		return 0, false, false
	}
	switch c >> 6 {
	case 3:
		return uint64(c & 0x3f), true, true
	case 0:
		return uint64(c & 0x3f), false, true
	case 1:
		c2, ok := r.Byte()
		return uint64(c&0x3f)<<8 | uint64(c2), false, ok
	}
	switch c {
	case 0x80:
		b, ok := r.take(4)
		if !ok {
			return 0, false, false
		}
		return uint64(binary.BigEndian.Uint32(b)), false, true
	case 0x81:
		b, ok := r.take(8)
		if !ok {
			return 0, false, false
		}
		return binary.BigEndian.Uint64(b), false, true
	}
	return 0, false, false
}

// String reads a string (rdbGenericLoadStringObject). The result may alias
// r.B.
func (r *Reader) String() ([]byte, bool) {
	n, enc, ok := r.Len()
	if !ok {
		return nil, false
	}
	if !enc {
		return r.take(n)
	}
	switch n {
	case 0:
		b, ok := r.take(1)
		if !ok {
			return nil, false
		}
		return strconv.AppendInt(nil, int64(int8(b[0])), 10), true
	case 1:
		b, ok := r.take(2)
		if !ok {
			return nil, false
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b))), 10), true
	case 2:
		b, ok := r.take(4)
		if !ok {
			return nil, false
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b))), 10), true
	case 3:
		clen, _, ok := r.Len()
		if !ok {
			return nil, false
		}
		ulen, _, ok := r.Len()
		if !ok {
			return nil, false
		}
		c, ok := r.take(clen)
		if !ok {
			return nil, false
		}
		out, ok := Decompress(c, ulen)
		return out, ok
	}
	return nil, false
}

// Footer checks a DUMP payload's last ten bytes (cluster.c:verifyDumpPayload):
// the RDB version, at most Version, and the CRC64 of all that precedes the
// checksum.
func Footer(p []byte) (ver uint16, ok bool) {
	if len(p) < 10 {
		return 0, false
	}
	f := p[len(p)-10:]
	ver = uint16(f[1])<<8 | uint16(f[0])
	if ver > Version {
		return ver, false
	}
	return ver, CRC64(0, p[:len(p)-8]) == binary.LittleEndian.Uint64(f[2:])
}

// AppendFooter appends the RDB version and the CRC64 of the payload.
func AppendFooter(b []byte) []byte {
	b = append(b, Version&0xff, Version>>8)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// Take reads n bytes; the result aliases r.B.
func (r *Reader) Take(n int) ([]byte, bool) {
	if n < 0 {
		return nil, false
	}
	return r.take(uint64(n))
}
