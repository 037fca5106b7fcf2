// Package intset is Redis's intset: a sorted set of integers in one []byte,
// each stored in the narrowest width that holds every member (2, 4 or 8
// bytes, little-endian), so a set of small numbers costs 2 bytes a member.
// Lookups are binary searches; inserts and deletes move the tail.
package intset

import (
	"encoding/binary"
	"math"
)

// Set is the sorted set. The zero Set is empty, 2 bytes wide.
type Set struct {
	b     []byte
	width int // 0 (empty, 2) or 2, 4, 8
}

func (s *Set) w() int {
	if s.width == 0 {
		return 2
	}
	return s.width
}

// Len is the number of members.
func (s *Set) Len() int { return len(s.b) / s.w() }

// Size is the bytes held.
func (s *Set) Size() int { return cap(s.b) }

// At returns the i-th smallest member.
func (s *Set) At(i int) int64 {
	switch w := s.w(); w {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(s.b[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(s.b[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(s.b[8*i:]))
}

func (s *Set) put(i int, v int64) {
	switch s.w() {
	case 2:
		binary.LittleEndian.PutUint16(s.b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(s.b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(s.b[8*i:], uint64(v))
	}
}

// search returns v's position, or where it would go.
func (s *Set) search(v int64) (int, bool) {
	lo, hi := 0, s.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x := s.At(mid); x < v {
			lo = mid + 1
		} else if x > v {
			hi = mid
		} else {
			return mid, true
		}
	}
	return lo, false
}

// Has reports whether v is a member.
func (s *Set) Has(v int64) bool {
	_, ok := s.search(v)
	return ok
}

func widthOf(v int64) int {
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 2
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 4
	}
	return 8
}

// Add inserts v and reports whether it is new.
func (s *Set) Add(v int64) bool {
	if w := widthOf(v); w > s.w() {
		s.widen(w)
	}
	i, ok := s.search(v)
	if ok {
		return false
	}
	n := s.Len()
	s.b = append(s.b, make([]byte, s.w())...)
	for j := n; j > i; j-- {
		s.put(j, s.At(j-1))
	}
	s.put(i, v)
	return true
}

func (s *Set) widen(w int) {
	n := s.Len()
	old := *s
	s.b, s.width = make([]byte, n*w, (n+1)*w), w
	for i := 0; i < n; i++ {
		s.put(i, old.At(i))
	}
}

// Remove deletes v and reports whether it was a member.
func (s *Set) Remove(v int64) bool {
	i, ok := s.search(v)
	if !ok {
		return false
	}
	w := s.w()
	s.b = append(s.b[:i*w], s.b[(i+1)*w:]...)
	return true
}

// Clone returns a copy of s.
func (s *Set) Clone() Set { return Set{b: append([]byte(nil), s.b...), width: s.width} }

// Width is the bytes each member takes (2, 4 or 8). As in Redis, it
// never narrows: a set that once held a wide member stays wide.
func (s *Set) Width() int { return s.w() }

// FromBlob makes a set of width w (2, 4 or 8, at least what each member
// needs) holding members, given in ascending order with no repeats, laid
// out as Redis's intset contents (little-endian).
func FromBlob(w int, members []byte) Set {
	return Set{b: append([]byte(nil), members...), width: w}
}
