package geohash

import (
	"math"

	"github.com/minilock/minilock/internal/cmath"
)

// distanceGo is geohashGetDistance without cgo: sin, cos and asin come from
// internal/cmath, which computes what glibc's do (Go's math package is an
// ulp or two off now and then, which STOREDIST and WITHDIST would show).
// Built with cgo too, so a test checks it against the C library.
func distanceGo(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := degRad(lon1)
	lon2r := degRad(lon2)
	v := cmath.Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1, lat2)
	}
	lat1r := degRad(lat1)
	lat2r := degRad(lat2)
	u := cmath.Sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(cmath.Cos(lat1r)*cmath.Cos(lat2r))*v)*v)
	return 2.0 * EarthRadius * cmath.Asin(math.Sqrt(a))
}
