package keyspace

import (
	"math/rand/v2"
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
	if size, used := h.small.Size(), h.small.End(); size > used+used/8+16 {
		t.Errorf("pack holds %d bytes for %d", size, used)
	}
	before := h.small.Size()
	h.reserve(pairs, &enc)
	if h.small.Size() != before {
		t.Errorf("reserving for fields already there grew the pack from %d to %d", before, h.small.Size())
	}
}
