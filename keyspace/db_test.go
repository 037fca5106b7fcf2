package keyspace

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestDBTableMatchesAMap drives a db's slot table with random inserts,
// overwrites, appends and deletes, and checks it against a Go map after
// every step: the table is hand-written (tombstones, resizes, cleared
// tails), so it gets a model-based test of its own.
func TestDBTableMatchesAMap(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 99))
		var d db
		d.init(new(atomic.Int64))
		model := map[string]string{}
		for step := range 20000 {
			key := "k" + strconv.Itoa(rng.IntN(500))
			if step%7 == 0 {
				key = "" // the empty key is a key too
			}
			i, found := d.lookup([]byte(key))
			want, inModel := model[key]
			if found != inModel {
				t.Fatalf("seed %d step %d: lookup(%q) found=%v, model has it=%v", seed, step, key, found, inModel)
			}
			if found && string(d.slots[i].val()) != want {
				t.Fatalf("seed %d step %d: %q = %q, want %q", seed, step, key, d.slots[i].val(), want)
			}
			val := strconv.Itoa(rng.IntN(1 << uint(rng.IntN(40))))
			switch op := rng.IntN(4); {
			case !found:
				d.insert([]byte(key), []byte(val))
				model[key] = val
			case op == 0:
				d.delete(i)
				delete(model, key)
			case op == 1:
				d.appendVal(i, []byte(val))
				model[key] += val
			default:
				d.setVal(i, []byte(val))
				model[key] = val
			}
			if d.size() != len(model) {
				t.Fatalf("seed %d step %d: size %d, model %d", seed, step, d.size(), len(model))
			}
			if d.dead < 0 || (d.used+d.dead)*4 > len(d.table)*3 {
				t.Fatalf("seed %d step %d: table of %d cells holds %d keys and %d tombstones", seed, step, len(d.table), d.used, d.dead)
			}
		}
		for key, want := range model {
			i, ok := d.lookupString(key)
			if !ok || d.slots[i].key() != key || string(d.slots[i].val()) != want {
				t.Fatalf("seed %d: final %q wrong", seed, key)
			}
		}
	}
}

// TestDBTakeAndReleaseDoesNotGrowTheTable checks that one lock taken and
// released 100,000 times leaves no tombstones behind.
func TestDBTakeAndReleaseDoesNotGrowTheTable(t *testing.T) {
	var d db
	d.init(new(atomic.Int64))
	for range 100000 {
		d.delete(d.insert([]byte("lock"), []byte("token")))
	}
	if d.dead != 0 || len(d.table) > 8 {
		t.Fatalf("after take/release: %d tombstones in %d cells", d.dead, len(d.table))
	}
}

// DataBytes follows what the databases hold: it grows with keys and values,
// shrinks as they go, and is back to zero once they are all gone.
func TestDataBytes(t *testing.T) {
	h := newKSTest(t)
	if n := h.k.DataBytes(); n != 0 {
		t.Fatalf("empty keyspace holds %d bytes", n)
	}
	val := strings.Repeat("v", 1000)
	for i := 0; i < 100; i++ {
		h.run("SET", "k"+strconv.Itoa(i), val)
	}
	after := h.k.DataBytes()
	if after < 100*1000 || after > 100*1000+64*1024 {
		t.Fatalf("100 keys of 1000 bytes: %d bytes", after)
	}
	h.run("APPEND", "k0", val)
	if n := h.k.DataBytes(); n < after+1000 {
		t.Fatalf("APPEND of 1000 bytes: %d -> %d", after, n)
	}
	for i := 0; i < 50; i++ {
		h.run("DEL", "k"+strconv.Itoa(i))
	}
	if n := h.k.DataBytes(); n > after-50*1000 {
		t.Fatalf("after deleting half: %d bytes (was %d)", n, after)
	}
	h.run("FLUSHALL")
	if n := h.k.DataBytes(); n != 0 {
		t.Fatalf("after FLUSHALL: %d bytes", n)
	}
}

// A hash's bytes are counted as it grows and shrinks, in both encodings,
// and given back when it goes.
func TestDataBytesHashes(t *testing.T) {
	h := newKSTest(t)
	h.run("HSET", "h", "f", "v")
	small := h.k.DataBytes()
	for i := 0; i < 1000; i++ {
		h.run("HSET", "h", "field"+strconv.Itoa(i), strings.Repeat("v", 100))
	}
	big := h.k.DataBytes()
	if big < small+100*1000 {
		t.Fatalf("1000 fields of 100 bytes: %d -> %d bytes", small, big)
	}
	for i := 0; i < 1000; i++ {
		h.run("HDEL", "h", "field"+strconv.Itoa(i))
	}
	if n := h.k.DataBytes(); n > big/2 {
		t.Fatalf("after deleting them: %d bytes (was %d)", n, big)
	}
	h.run("DEL", "h")
	if n := h.k.DataBytes(); n > 256 { // the database's own slot and cells stay
		t.Fatalf("after DEL: %d bytes", n)
	}
}
