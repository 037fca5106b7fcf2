package keyspace

import (
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/dict"
	"github.com/minilock/minilock/keyspace/internal/intset"
)

// A set's value, as Redis 7.0 keeps it: an intset while every member is an
// integer in canonical form and there are at most set-max-intset-entries
// of them, a dict from then on.
type setValue struct {
	ints intset.Set // while big is nil
	big  *dict.Dict[struct{}]
}

func (s *setValue) len() int {
	if s.big != nil {
		return s.big.Len()
	}
	return s.ints.Len()
}

func (s *setValue) size() int64 {
	if s.big != nil {
		return s.big.Size()
	}
	return int64(s.ints.Size())
}

// has reports whether m is a member.
func (s *setValue) has(m []byte) bool {
	if s.big != nil {
		_, ok := s.big.Get(m)
		return ok
	}
	n, ok := redisstr.ParseInt(m)
	return ok && s.ints.Has(n)
}

// add inserts m and reports whether it is new, converting the set when m
// is not an integer or the intset grows past enc.
func (s *setValue) add(m []byte, enc *Encodings) bool {
	if s.big == nil {
		if n, ok := redisstr.ParseInt(m); ok {
			if !s.ints.Add(n) {
				return false
			}
			if s.ints.Len() > enc.SetMaxIntsetEntries {
				s.convert()
			}
			return true
		}
		s.convert()
	}
	return s.big.Set(m, struct{}{})
}

// remove deletes m and reports whether it was a member.
func (s *setValue) remove(m []byte) bool {
	if s.big != nil {
		return s.big.Delete(m)
	}
	n, ok := redisstr.ParseInt(m)
	return ok && s.ints.Remove(n)
}

func (s *setValue) convert() {
	d := &dict.Dict[struct{}]{}
	for i := 0; i < s.ints.Len(); i++ {
		d.Set(strconv.AppendInt(nil, s.ints.At(i), 10), struct{}{})
	}
	s.big, s.ints = d, intset.Set{}
}

// each calls f for every member (an intset's in order) until f returns
// false. The slice is only valid during the call.
func (s *setValue) each(f func(m []byte) bool) {
	if s.big != nil {
		s.big.All(func(k string, _ struct{}) bool { return f([]byte(k)) })
		return
	}
	var buf [24]byte
	for i := 0; i < s.ints.Len(); i++ {
		if !f(strconv.AppendInt(buf[:0], s.ints.At(i), 10)) {
			return
		}
	}
}

// random returns a random member; the set is not empty.
func (s *setValue) random(k *Keyspace) []byte {
	if s.big != nil {
		m, _ := s.big.Random(k.rng.IntN)
		return readOnly(m)
	}
	return strconv.AppendInt(nil, s.ints.At(k.rng.IntN(s.ints.Len())), 10)
}

// newSetFor is setTypeCreate: an intset when the first member is an
// integer.
func newSetFor(first []byte) *setValue {
	s := &setValue{}
	if _, ok := redisstr.ParseInt(first); !ok {
		s.big = &dict.Dict[struct{}]{}
	}
	return s
}

func (s *setValue) clone() value {
	c := &setValue{ints: s.ints.Clone()}
	if s.big != nil {
		c.big = s.big.Clone()
	}
	return c
}
