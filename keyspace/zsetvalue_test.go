package keyspace

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// A large sorted set driven by random adds, moves and deletes (many ties,
// -0 and 0, enough deletes to compact its dict, clones along the way)
// holds what a model holds, in Redis's order.
func TestZSetValueMatchesAModel(t *testing.T) {
	enc := DefaultEncodings()
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		z := &zsetValue{}
		model := map[string]float64{}
		var clone *zsetValue
		var cloneModel map[string]float64
		check := func(z *zsetValue, model map[string]float64, step int) {
			want := make([]zitem, 0, len(model))
			for m, s := range model {
				want = append(want, zitem{s, m})
			}
			slices.SortFunc(want, func(a, b zitem) int {
				switch {
				case zless(a, b):
					return -1
				case zless(b, a):
					return 1
				}
				return 0
			})
			if z.len() != len(want) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, z.len(), len(want))
			}
			i := 0
			z.each(0, z.len()-1, false, func(m []byte, s float64) bool {
				if string(m) != want[i].member || math.Float64bits(s) != math.Float64bits(want[i].score) {
					t.Fatalf("seed %d step %d: rank %d is %q %v, want %q %v", seed, step, i, m, s, want[i].member, want[i].score)
				}
				if r, ok := z.rank(m); !ok || r != i {
					t.Fatalf("seed %d step %d: rank(%q) = %d, %v; want %d", seed, step, m, r, ok, i)
				}
				i++
				return true
			})
		}
		for step := 0; step < 20000; step++ {
			m := "m" + strconv.Itoa(rng.IntN(1500))
			switch {
			case step > 14000 || rng.IntN(3) == 0:
				_, had := model[m]
				if z.del([]byte(m)) != had {
					t.Fatalf("seed %d step %d: del(%s) disagrees", seed, step, m)
				}
				delete(model, m)
			default:
				s := float64(rng.IntN(20) - 10)
				if s == 0 && rng.IntN(2) == 0 {
					s = math.Copysign(0, -1)
				}
				wasSmall := z.tree == nil
				z.put([]byte(m), s, &enc)
				if wasSmall && z.tree != nil {
					for k, v := range model { // a pack loses -0's sign
						model[k] = v + 0
					}
				}
				if z.tree == nil {
					s += 0
				}
				model[m] = s
			}
			if step%4000 == 0 && z.tree != nil {
				clone, cloneModel = z.clone().(*zsetValue), maps(model)
				clone.put([]byte("only-in-clone"), 1, &enc)
				cloneModel["only-in-clone"] = 1
			}
			if step%1000 == 0 {
				check(z, model, step)
				if clone != nil {
					check(clone, cloneModel, step)
				}
			}
		}
		check(z, model, -1)
	}
}

func maps(m map[string]float64) map[string]float64 {
	c := make(map[string]float64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// A pack's score reads back as it was written (-0 as 0), in as few bytes
// as an integral score needs.
func TestPackScoreRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	scores := []float64{0, math.Copysign(0, -1), 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769,
		1<<53 - 1, -(1<<53 - 1), 1 << 53, -(1 << 53), 1e300, -1e300, 0.5, -2.25, math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, math.MaxFloat64, 1 << 62, -(1 << 63)}
	for i := 0; i < 10000; i++ {
		scores = append(scores, float64(rng.Int64N(1<<54)-1<<53), rng.NormFloat64()*1e6, math.Float64frombits(rng.Uint64()))
	}
	for _, f := range scores {
		if math.IsNaN(f) {
			continue
		}
		var buf [8]byte
		b := packScore(&buf, f)
		if got := unpackScore(b); math.Float64bits(got) != math.Float64bits(f+0) {
			t.Fatalf("%v packs as %x, reads back as %v", f, b, got)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<15 && len(b) > 2 {
			t.Fatalf("%v packs in %d bytes", f, len(b))
		}
	}
}

// ZADD of many members grows a small set's pack once (see
// TestHashReserveGrowsOnce); members already there reserve nothing.
func TestZSetReserveGrowsOnce(t *testing.T) {
	enc := DefaultEncodings()
	var pairs [][]byte
	var scores []float64
	for j := range 100 {
		scores = append(scores, float64(j*7919))
		pairs = append(pairs, []byte(strconv.Itoa(j*7919)), []byte("member:"+strconv.Itoa(j)))
	}
	var z *zsetValue
	allocs := testing.AllocsPerRun(10, func() {
		z = &zsetValue{}
		z.reserve(pairs, scores, &enc)
		for j, s := range scores {
			z.put(pairs[2*j+1], s, &enc)
		}
	})
	if allocs > 4 {
		t.Errorf("ZADD of 100 members: %.0f allocations", allocs)
	}
	if size, used := z.small.Size(), z.small.End(); size > used+used/8+16 {
		t.Errorf("pack holds %d bytes for %d", size, used)
	}
	before := z.small.Size()
	z.reserve(pairs, scores, &enc)
	if z.small.Size() != before {
		t.Errorf("reserving for members already there grew the pack from %d to %d", before, z.small.Size())
	}
}
