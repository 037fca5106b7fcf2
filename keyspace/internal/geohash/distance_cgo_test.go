//go:build cgo

package geohash

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDistanceWithoutCgo measures the pure-Go distance a build without cgo
// uses against the C library's, over seeded coordinates across the globe
// and pairs a few metres apart (where asin's argument is tiny): glibc's
// sin and cos are not correctly rounded in every case, and internal/cmath
// does not reproduce all of its misroundings, so about 0.2% of distances
// differ in their last bits (417 of 200,000 here; an ulp off in sin grows
// to a few in the distance). More, or a larger difference, is a bug.
func TestDistanceWithoutCgo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const n = 200000
	differ := 0
	for i := range n {
		lon1, lat1 := r.Float64()*360-180, r.Float64()*170.1-85.05
		lon2, lat2 := r.Float64()*360-180, r.Float64()*170.1-85.05
		if i%4 == 0 {
			lon2, lat2 = lon1+r.Float64()*1e-4, lat1+r.Float64()*1e-4
		}
		got, want := distanceGo(lon1, lat1, lon2, lat2), Distance(lon1, lat1, lon2, lat2)
		if got == want {
			continue
		}
		differ++
		if math.Abs(got-want) > 1e-14*want {
			t.Fatalf("distance (%v,%v)-(%v,%v): %v without cgo, %v from libm: more than a few ulps", lon1, lat1, lon2, lat2, got, want)
		}
	}
	if differ > n/400 {
		t.Fatalf("%d of %d distances differ from libm's in their last bits, want at most %d", differ, n, n/400)
	}
	t.Logf("%d of %d distances differ from libm's in their last bits", differ, n)
}
