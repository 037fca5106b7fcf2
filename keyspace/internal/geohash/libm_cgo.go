//go:build cgo

package geohash

/*
#cgo LDFLAGS: -lm
#include <math.h>

// geohashGetDistance as Redis writes it (geohash_helper.c), one call per
// distance: the C library's sin, cos and asin, in Redis's order.
static double ml_geo_distance(double lon1d, double lat1d, double lon2d, double lat2d) {
    const double dr = M_PI / 180.0;
    const double r = 6372797.560856;
    double lat1r, lon1r, lat2r, lon2r, u, v, a;
    lon1r = lon1d * dr;
    lon2r = lon2d * dr;
    v = sin((lon2r - lon1r) / 2);
    if (v == 0.0)
        return r * fabs(lat2d * dr - lat1d * dr);
    lat1r = lat1d * dr;
    lat2r = lat2d * dr;
    u = sin((lat2r - lat1r) / 2);
    a = u * u + cos(lat1r) * cos(lat2r) * v * v;
    return 2.0 * r * asin(sqrt(a));
}
*/
import "C"

// With cgo, distances come from the C library's sin, cos and asin, as
// redis-server's do: glibc's are correctly rounded in all but about one
// case in a thousand, and in those Redis's digits are glibc's. Without
// cgo, internal/cmath stands in (libm_nocgo.go).

// Distance is geohashGetDistance, the haversine distance in metres.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	return float64(C.ml_geo_distance(C.double(lon1), C.double(lat1), C.double(lon2), C.double(lat2)))
}

func libCos(x float64) float64 { return float64(C.cos(C.double(x))) }
