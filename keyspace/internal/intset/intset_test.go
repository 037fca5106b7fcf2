package intset

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// An intset driven by random adds and removes, across every width, holds
// what a sorted slice holds, in order.
func TestIntsetMatchesASortedSlice(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		var s Set
		var model []int64
		pick := func() int64 {
			switch rng.IntN(4) {
			case 0:
				return int64(rng.IntN(200) - 100)
			case 1:
				return int64(rng.IntN(1<<20)) - 1<<19
			case 2:
				return []int64{math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt16 + 1}[rng.IntN(4)]
			}
			return rng.Int64()
		}
		for step := 0; step < 3000; step++ {
			v := pick()
			i, found := slices.BinarySearch(model, v)
			if rng.IntN(3) == 0 {
				if s.Remove(v) != found {
					t.Fatalf("seed %d: Remove(%d) disagrees", seed, v)
				}
				if found {
					model = slices.Delete(model, i, i+1)
				}
			} else {
				if s.Add(v) != !found {
					t.Fatalf("seed %d: Add(%d) disagrees", seed, v)
				}
				if !found {
					model = slices.Insert(model, i, v)
				}
			}
			if s.Len() != len(model) {
				t.Fatalf("seed %d: Len %d, model %d", seed, s.Len(), len(model))
			}
		}
		for i, v := range model {
			if s.At(i) != v || !s.Has(v) {
				t.Fatalf("seed %d: member %d is %d, want %d", seed, i, s.At(i), v)
			}
		}
	}
}
