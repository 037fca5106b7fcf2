package keyspace

import (
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"
)

func TestDirectTypeReaders(t *testing.T) {
	h := newKSTest(t)
	h.run("HSET", "h", "b", "2", "a", "1")
	h.run("RPUSH", "l", "x", "y", "x")
	h.run("SADD", "s", "n", "m")
	h.run("ZADD", "z", "2", "b", "1", "a", "1", "c")
	h.run("SET", "str", "v")
	// Past the compact encodings' sizes too: 200 elements each.
	for i := range 200 {
		n := strconv.Itoa(i)
		h.run("HSET", "bigh", n, n)
		h.run("SADD", "bigs", "m"+n)
		h.run("ZADD", "bigz", n, "m"+n)
		h.run("RPUSH", "bigl", n)
	}
	before := h.k.Stats()

	hash, err := h.k.HashOf(0, "h")
	if err != nil || !reflect.DeepEqual(hash, map[string]string{"a": "1", "b": "2"}) {
		t.Fatalf("HashOf = %v, %v", hash, err)
	}
	l, err := h.k.ListOf(0, "l")
	if err != nil || !reflect.DeepEqual(l, []string{"x", "y", "x"}) {
		t.Fatalf("ListOf = %q, %v", l, err)
	}
	s, err := h.k.SetOf(0, "s")
	if err != nil || !reflect.DeepEqual(s, []string{"m", "n"}) {
		t.Fatalf("SetOf = %q, %v", s, err)
	}
	z, err := h.k.ZSetOf(0, "z")
	if want := []ZItem{{"a", 1}, {"c", 1}, {"b", 2}}; err != nil || !reflect.DeepEqual(z, want) {
		t.Fatalf("ZSetOf = %v, %v", z, err)
	}
	if hash, _ := h.k.HashOf(0, "bigh"); len(hash) != 200 || hash["150"] != "150" {
		t.Fatalf("HashOf a big hash: %d fields", len(hash))
	}
	if s, _ := h.k.SetOf(0, "bigs"); len(s) != 200 || s[0] != "m0" || s[1] != "m1" || s[2] != "m10" {
		t.Fatalf("SetOf a big set: %d members, first %q", len(s), s[:3])
	}
	if z, _ := h.k.ZSetOf(0, "bigz"); len(z) != 200 || z[199] != (ZItem{"m199", 199}) {
		t.Fatalf("ZSetOf a big sorted set: %d members", len(z))
	}
	if l, _ := h.k.ListOf(0, "bigl"); len(l) != 200 || l[199] != "199" {
		t.Fatalf("ListOf a big list: %d elements", len(l))
	}
	for key, want := range map[string]string{"h": "hash", "l": "list", "s": "set", "z": "zset", "str": "string", "nope": "none"} {
		if got := h.k.TypeOf(0, key); got != want {
			t.Fatalf("TypeOf(%s) = %s, want %s", key, got, want)
		}
	}
	if _, err := h.k.HashOf(0, "nope"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("HashOf a missing key: %v", err)
	}
	if _, err := h.k.ListOf(0, "h"); !errors.Is(err, ErrWrongType) {
		t.Fatalf("ListOf a hash: %v", err)
	}
	// No client asked: no hit or miss is counted.
	if after := h.k.Stats(); after != before {
		t.Fatalf("direct reads changed the stats: %+v, then %+v", before, after)
	}
}

// A key past its deadline is gone to a direct reader too, and is removed.
func TestDirectTypeReadersExpire(t *testing.T) {
	h := newKSTest(t)
	h.run("SADD", "s", "m")
	h.run("PEXPIRE", "s", "100")
	h.clock.FastForward(101 * time.Millisecond) // no sweep: lazily
	if _, err := h.k.SetOf(0, "s"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("SetOf an expired key: %v", err)
	}
	if got := h.k.Info()[0].Keys; got != 0 {
		t.Fatalf("the expired key is still counted: %d keys", got)
	}
}

func TestDirectSeed(t *testing.T) {
	pops := func(seed uint64) string {
		h := newKSTest(t)
		for i := range 100 {
			h.run("SADD", "s", "m"+strconv.Itoa(i))
		}
		h.k.Seed(seed)
		return h.run("SPOP", "s", "10") + h.run("SRANDMEMBER", "s", "-10")
	}
	if a, b := pops(1), pops(1); a != b {
		t.Fatalf("the same seed popped %q, then %q", a, b)
	}
	if a, b := pops(1), pops(2); a == b {
		t.Fatalf("seeds 1 and 2 popped alike: %q", a)
	}
}
