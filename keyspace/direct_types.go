package keyspace

import (
	"errors"
	"math/rand/v2"
	"sort"
)

// Direct reads of every type, for embedders and tests (direct.go has the
// strings). They look keys up as a write command does: no keyspace hit or
// miss is counted and no keymiss event is sent, since no client asked.
// A key past its deadline is expired first, as any lookup does. Changes
// go through the commands themselves (the server runs them on the owner),
// so that they notify, wake blocked clients and touch WATCH exactly as the
// command they stand for.

// ErrNoKey is returned by the direct readers for a key that does not exist.
var ErrNoKey = errors.New("no such key")

// ErrWrongType is the WRONGTYPE error a direct reader returns for a key
// holding another type, the very error a command answers.
var ErrWrongType error = errWrongType

// ZItem is a member of a sorted set and its score.
type ZItem struct {
	Member string
	Score  float64
}

// objectFor finds key's object of kind in database db.
func (k *Keyspace) objectFor(db int, key string, kind Kind) (*object, error) {
	o, _, err := k.objectOf(k.direct(db), []byte(key), kind, false)
	if err == nil && o == nil {
		err = ErrNoKey
	}
	return o, err
}

// TypeOf is key's type as TYPE names it: "string", "list", "set", "zset",
// "hash", or "none" for a missing key.
func (k *Keyspace) TypeOf(db int, key string) string {
	e, _, ok := k.find(k.direct(db), []byte(key))
	if !ok {
		return "none"
	}
	return e.kindOf().String()
}

// HashOf returns the fields and values of the hash at key.
func (k *Keyspace) HashOf(db int, key string) (map[string]string, error) {
	o, err := k.objectFor(db, key, kindHash)
	if err != nil {
		return nil, err
	}
	h := o.v.(*hashValue)
	out := make(map[string]string, h.len())
	h.each(func(f, v []byte) bool {
		out[string(f)] = string(v)
		return true
	})
	return out, nil
}

// ListOf returns the elements of the list at key, head first.
func (k *Keyspace) ListOf(db int, key string) ([]string, error) {
	o, err := k.objectFor(db, key, kindList)
	if err != nil {
		return nil, err
	}
	l := o.v.(*listValue)
	out := make([]string, 0, l.len())
	l.each(0, l.len()-1, false, func(v []byte) bool {
		out = append(out, string(v))
		return true
	})
	return out, nil
}

// SetOf returns the members of the set at key, sorted.
func (k *Keyspace) SetOf(db int, key string) ([]string, error) {
	o, err := k.objectFor(db, key, kindSet)
	if err != nil {
		return nil, err
	}
	s := o.v.(*setValue)
	out := make([]string, 0, s.len())
	s.each(func(m []byte) bool {
		out = append(out, string(m))
		return true
	})
	sort.Strings(out)
	return out, nil
}

// ZSetOf returns the members of the sorted set at key with their scores,
// in the set's order (by score, then member), as ZRANGE 0 -1 WITHSCORES.
func (k *Keyspace) ZSetOf(db int, key string) ([]ZItem, error) {
	o, err := k.objectFor(db, key, kindZSet)
	if err != nil {
		return nil, err
	}
	z := o.v.(*zsetValue)
	out := make([]ZItem, 0, z.len())
	z.each(0, z.len()-1, false, func(m []byte, s float64) bool {
		out = append(out, ZItem{string(m), s})
		return true
	})
	return out, nil
}

// Seed reseeds the generator behind the random commands (SPOP,
// SRANDMEMBER, HRANDFIELD, ZRANDMEMBER, RANDOMKEY): the same commands on
// the same data then answer the same, run after run.
func (k *Keyspace) Seed(seed uint64) {
	k.rng = rand.New(rand.NewPCG(seed, seed))
}
