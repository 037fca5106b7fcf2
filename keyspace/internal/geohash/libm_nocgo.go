//go:build !cgo

package geohash

import "math"

// Distance is geohashGetDistance, the haversine distance in metres.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := degRad(lon1)
	lon2r := degRad(lon2)
	v := crSin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1, lat2)
	}
	lat1r := degRad(lat1)
	lat2r := degRad(lat2)
	u := crSin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(crCos(lat1r)*crCos(lat2r))*v)*v)
	return 2.0 * EarthRadius * crAsin(math.Sqrt(a))
}

func libCos(x float64) float64 { return crCos(x) }
