// Package lstruct is the struct library (deps/lua/src/lua_struct.c, v0.2
// as Redis 7.0 ships it): pack, unpack and size of C-like binary records,
// for x86-64 sizes (long and size_t 8 bytes, int 4, native little endian,
// max alignment 8), with the library's messages and limits.
package lstruct

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	little bool
	align  int
}

// Funcs returns the struct table's functions.
func Funcs() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"pack":   structPack,
		"unpack": structUnpack,
		"size":   structSize,
	}
}

type structFmt struct {
	L   *lua.LState
	f   string
	pos int
}

func (s *structFmt) more() bool { return s.pos < len(s.f) && s.f[s.pos] != 0 }

func (s *structFmt) next() byte {
	c := s.f[s.pos]
	s.pos++
	return c
}

func (s *structFmt) getnum(df int) int {
	if s.pos >= len(s.f) || !isDigit(s.f[s.pos]) {
		return df
	}
	a := 0
	for s.pos < len(s.f) && isDigit(s.f[s.pos]) {
		d := int(s.f[s.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			lauxlib.Errorf(s.L, "integral size overflow")
		}
		a = a*10 + d
		s.pos++
	}
	return a
}

func (s *structFmt) optsize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return s.getnum(1)
	case 'i', 'I':
		sz := s.getnum(4)
		if sz > structMaxIntSize {
			lauxlib.Errorf(s.L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

func toAlign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

func (s *structFmt) control(opt byte, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := s.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			lauxlib.Errorf(s.L, "alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		lauxlib.ArgError(s.L, 1, "invalid format option '"+string([]byte{opt})+"'")
	}
}

func isIntOpt(opt byte) bool { return strings.IndexByte("bBhHlLTiI", opt) >= 0 }

// toUint64 is C's conversion of a double to unsigned long long on x86-64.
func toUint64(n float64) uint64 {
	if n < 0 {
		return uint64(lauxlib.ToInteger(n))
	}
	if n < 1<<63 {
		return uint64(int64(n))
	}
	return uint64(lauxlib.ToInteger(n-(1<<63))) ^ 1<<63
}

func structPack(L *lua.LState) int {
	s := &structFmt{L: L, f: lauxlib.CheckString(L, 1)}
	h := structHeader{little: true, align: 1}
	arg := 2
	var b []byte
	for s.more() {
		opt := s.next()
		size := s.optsize(opt)
		for n := toAlign(len(b), &h, opt, size); n > 0; n-- {
			b = append(b, 0)
		}
		switch {
		case isIntOpt(opt):
			v := toUint64(lauxlib.CheckNumber(L, arg))
			arg++
			buf := make([]byte, size)
			for i := 0; i < size; i++ {
				j := i
				if !h.little {
					j = size - 1 - i
				}
				buf[j] = byte(v)
				v >>= 8
			}
			b = append(b, buf...)
		case opt == 'x':
			b = append(b, 0)
		case opt == 'f':
			var buf [4]byte
			bits := math.Float32bits(float32(lauxlib.CheckNumber(L, arg)))
			arg++
			if h.little {
				binary.LittleEndian.PutUint32(buf[:], bits)
			} else {
				binary.BigEndian.PutUint32(buf[:], bits)
			}
			b = append(b, buf[:]...)
		case opt == 'd':
			var buf [8]byte
			bits := math.Float64bits(lauxlib.CheckNumber(L, arg))
			arg++
			if h.little {
				binary.LittleEndian.PutUint64(buf[:], bits)
			} else {
				binary.BigEndian.PutUint64(buf[:], bits)
			}
			b = append(b, buf[:]...)
		case opt == 'c' || opt == 's':
			str := lauxlib.CheckString(L, arg)
			arg++
			if size == 0 {
				size = len(str)
			}
			if len(str) < size {
				lauxlib.ArgError(L, arg, "string too short")
			}
			b = append(b, str[:size]...)
			if opt == 's' {
				b = append(b, 0)
			}
		default:
			s.control(opt, &h)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

func structGetInteger(data string, little, signed bool, size int) float64 {
	var l uint64
	for i := 0; i < size; i++ {
		j := i
		if little {
			j = size - 1 - i
		}
		l = l<<8 | uint64(data[j])
	}
	if !signed {
		return float64(l)
	}
	mask := ^uint64(0) << (uint(size*8-1) & 63) // x86 shifts modulo 64
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	s := &structFmt{L: L, f: lauxlib.CheckString(L, 1)}
	data := lauxlib.CheckString(L, 2)
	ld := uint64(len(data))
	pos := uint64(int64(lauxlib.OptInteger(L, 3, 1)))
	if pos == 0 {
		lauxlib.ArgError(L, 3, "offset must be 1 or greater")
	}
	pos--
	h := structHeader{little: true, align: 1}
	var out []lua.LValue
	for s.more() {
		opt := s.next()
		size := uint64(s.optsize(opt))
		pos += uint64(toAlign(int(pos), &h, opt, int(size)))
		if !(size <= ld && pos <= ld-size) {
			lauxlib.ArgError(L, 2, "data string too short")
		}
		if len(out)+2 > lauxlib.MaxCStack {
			lauxlib.Errorf(L, "stack overflow (too many results)")
		}
		switch {
		case isIntOpt(opt):
			signed := opt >= 'a'
			out = append(out, lua.LNumber(structGetInteger(data[pos:], h.little, signed, int(size))))
		case opt == 'x':
		case opt == 'f':
			var bits uint32
			if h.little {
				bits = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				bits = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			out = append(out, lua.LNumber(math.Float32frombits(bits)))
		case opt == 'd':
			var bits uint64
			if h.little {
				bits = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				bits = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			out = append(out, lua.LNumber(math.Float64frombits(bits)))
		case opt == 'c':
			if size == 0 {
				var prev lua.LValue = lua.LNil
				if len(out) > 0 {
					prev = out[len(out)-1]
				}
				n, ok := prev.(lua.LNumber)
				if !ok {
					lauxlib.Errorf(L, "format 'c0' needs a previous size")
				}
				size = uint64(lauxlib.ToInteger(float64(n)))
				out = out[:len(out)-1]
				if !(size <= ld && pos <= ld-size) {
					lauxlib.ArgError(L, 2, "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case opt == 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				lauxlib.Errorf(L, "unfinished string in data")
			}
			size = uint64(e) + 1
			out = append(out, lua.LString(data[pos:pos+uint64(e)]))
		default:
			s.control(opt, &h)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lauxlib.Number(L, pos+1))
	return len(out) + 1
}

func structSize(L *lua.LState) int {
	s := &structFmt{L: L, f: lauxlib.CheckString(L, 1)}
	h := structHeader{little: true, align: 1}
	pos := 0
	for s.more() {
		opt := s.next()
		size := s.optsize(opt)
		pos += toAlign(pos, &h, opt, size)
		if opt == 's' {
			lauxlib.ArgError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			lauxlib.ArgError(L, 1, "option 'c0' has no fixed size")
		}
		if !(isAlpha(opt) || isDigit(opt)) {
			s.control(opt, &h)
		}
		pos += size
	}
	L.Push(lauxlib.Number(L, pos))
	return 1
}

// isDigit and isAlpha are <ctype.h>'s isdigit and isalpha in the "C"
// locale.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
