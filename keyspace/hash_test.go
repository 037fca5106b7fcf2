package keyspace

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// A negative count asks for that many random fields, repeats allowed:
// Redis builds any such reply (HRANDFIELD h -9223372036854775807 takes the
// server down), minilock refuses one over maxRandomReply.
func TestHRandFieldHugeCount(t *testing.T) {
	h := newKSTest(t)
	h.run("HSET", "h", "f", "v")
	for _, tc := range []struct{ args []string }{
		{[]string{"HRANDFIELD", "h", "-9223372036854775807"}},
		{[]string{"HRANDFIELD", "h", "-100000000"}},
		{[]string{"HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"}},
	} {
		if got := h.run(tc.args...); got != errReply(errRandomReply.Msg) {
			t.Errorf("%q: %q", tc.args, got)
		}
	}
	if got := h.run("HRANDFIELD", "h", "-3"); got != "*3\r\n$1\r\nf\r\n$1\r\nf\r\n$1\r\nf\r\n" {
		t.Errorf("HRANDFIELD h -3: %q", got)
	}
}

// A large hash counts its values' bytes as they change, for its size.
func TestHashValueCountsValueBytes(t *testing.T) {
	enc := DefaultEncodings()
	rng := rand.New(rand.NewPCG(3, 9))
	h := &hashValue{}
	for step := 0; step < 5000; step++ {
		f := []byte("f" + strconv.Itoa(rng.IntN(400)))
		if rng.IntN(3) == 0 {
			h.del(f)
		} else {
			h.set(f, make([]byte, rng.IntN(100)), &enc)
		}
		if h.big != nil {
			var want int64
			h.big.All(func(_ string, v string) bool { want += int64(len(v)); return true })
			if h.vals != want {
				t.Fatalf("step %d: counted %d value bytes, holds %d", step, h.vals, want)
			}
		}
	}
	if h.big == nil {
		t.Fatal("the hash never grew past its pack")
	}
}

// A command that adds many fields grows a small hash's pack once, to its
// size class, not once per class on the way (each step would leave the
// last pack as garbage between other keys' packs); fields it already holds
// reserve nothing.
func TestHashReserveGrowsOnce(t *testing.T) {
	enc := DefaultEncodings()
	var pairs [][]byte
	for j := range 100 {
		pairs = append(pairs, []byte("field:"+strconv.Itoa(j)), []byte("value:"+strconv.Itoa(j*977)))
	}
	var h *hashValue
	allocs := testing.AllocsPerRun(10, func() {
		h = &hashValue{}
		h.reserve(pairs, &enc)
		for j := 0; j < len(pairs); j += 2 {
			h.set(pairs[j], pairs[j+1], &enc)
		}
	})
	if allocs > 4 { // the hashValue and its pack (and one more under -race)
		t.Errorf("HSET of 100 fields: %.0f allocations", allocs)
	}
	if size, used := h.small.size(), h.small.end(); size > used+used/8+16 {
		t.Errorf("pack holds %d bytes for %d", size, used)
	}
	before := h.small.size()
	h.reserve(pairs, &enc)
	if h.small.size() != before {
		t.Errorf("reserving for fields already there grew the pack from %d to %d", before, h.small.size())
	}
}

// An hpack driven by random adds, value changes and removes holds what a
// model holds, in order, whichever header form its pairs take (lengths
// under 16, the 15/15 pair that takes the long form, past 127).
func TestHPackMatchesAModel(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		lengths := []int{0, 1, 7, 14, 15, 16, 17, 127, 128, 300}
		str := func() []byte {
			b := make([]byte, lengths[rng.IntN(len(lengths))])
			for i := range b {
				b[i] = byte('a' + rng.IntN(3))
			}
			return b
		}
		var p hpack
		type pair struct{ f, v string }
		var model []pair
		for step := 0; step < 4000; step++ {
			f := "f" + strconv.Itoa(rng.IntN(60))
			if rng.IntN(4) == 0 {
				f = string(str()) // of every length, now and then
			}
			i := slices.IndexFunc(model, func(x pair) bool { return x.f == f })
			off := p.find([]byte(f))
			if (i >= 0) != (off >= 0) || i >= 0 && p.offset(i) != off {
				t.Fatalf("seed %d step %d: find(%q) = %d, model index %d", seed, step, f, off, i)
			}
			switch v := string(str()); {
			case i < 0:
				p.add([]byte(f), []byte(v))
				model = append(model, pair{f, v})
			case rng.IntN(2) == 0:
				p.setValue(off, []byte(v))
				model[i].v = v
			default:
				p.remove(off)
				model = slices.Delete(model, i, i+1)
			}
			if p.len() != len(model) {
				t.Fatalf("seed %d step %d: len %d, model %d", seed, step, p.len(), len(model))
			}
			j := 0
			for off := 0; off < p.end(); j++ {
				var f, v []byte
				f, v, off = p.at(off)
				if string(f) != model[j].f || string(v) != model[j].v {
					t.Fatalf("seed %d step %d: pair %d is %q %q, model %q %q", seed, step, j, f, v, model[j].f, model[j].v)
				}
			}
		}
	}
	if pairSize(15, 15) != 1+1+1+30 || pairSize(15, 14) != 1+29 || pairSize(16, 0) != 3+16 {
		t.Fatalf("pair sizes %d %d %d", pairSize(15, 15), pairSize(15, 14), pairSize(16, 0))
	}
}
