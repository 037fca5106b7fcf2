package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// Geo against redis-server: scores, distances ("%.4f" by Redis's own
// fixed-point printer), coordinates (long double "%.17Lf" trimmed), the
// order of results (a stable sort, or pqsort's with COUNT) and every
// error, hand-written and generated.

var geoCases = []diffCase{
	tc("geoadd geopos geodist geohash",
		c("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"), c("ZRANGE Sicily 0 -1 WITHSCORES"),
		c("GEODIST Sicily Palermo Catania"), c("GEODIST Sicily Palermo Catania km"), c("GEODIST Sicily Palermo Catania MI"),
		c("GEODIST Sicily Palermo Catania ft"), c("GEODIST Sicily Palermo Catania yd"), c("GEODIST Sicily Palermo Catania m x"),
		c("GEODIST Sicily Palermo nosuch"), c("GEODIST nosuch a b"), c("GEODIST nosuch a b yd"),
		c("GEOHASH Sicily Palermo Catania nosuch"), c("GEOHASH nosuch a"), c("GEOHASH Sicily"),
		c("GEOPOS Sicily Palermo nosuch Catania"), c("GEOPOS nosuch a"), c("GEOPOS Sicily")),
	tc("geoadd options and errors",
		c("GEOADD g 1 1 a"), c("GEOADD g NX 2 2 a 3 3 b"), c("GEOADD g XX 2 2 a 4 4 c"), c("GEOADD g CH 5 5 a 3 3 b"),
		c("GEOADD g ch xx nx 1 1 a"), c("GEOADD g 1 1"), c("GEOADD g 1 1 a 2"), c("GEOADD g CH CH 1 1 a"),
		c("GEOADD g 181 1 a"), c("GEOADD g 1 85.06 a"), c("GEOADD g -180.000001 -85.05112879 a"), c("GEOADD g x 1 a"),
		c("GEOADD g 1 inf a"), c("GEOADD g 1 nan a"), c("GEOADD g 1e400 1 a"), c("GEOADD g 180 85.05112878 p1 -180 -85.05112878 p2"),
		c("GEOPOS g p1 p2"), c("GEOHASH g p1 p2"), c("GEODIST g p1 p2 km"), c("ZRANGE g 0 -1 WITHSCORES"),
		c("SET s x"), c("GEOADD s 1 1 a"), c("GEOPOS s a"), c("GEODIST s a b"), c("GEOHASH s a"), c("GEOSEARCH s FROMLONLAT 0 0 BYRADIUS 1 m"),
		c("GEORADIUS s 0 0 1 m"), c("GEORADIUSBYMEMBER s a 1 m")),
	tc("geo on plain zset scores",
		c("ZADD z -1 neg 0 zero 1.5 frac 4503599627370496 max52 1e300 huge -inf minf inf pinf 9.3e18 big"),
		c("GEOPOS z neg zero frac max52 huge minf pinf big"), c("GEOHASH z neg zero frac max52 huge minf pinf big"),
		c("GEODIST z neg huge"), c("GEODIST z zero max52 km"),
		c("GEORADIUSBYMEMBER z zero 20000 km WITHHASH WITHCOORD WITHDIST"), c("GEOSEARCH z FROMMEMBER pinf BYBOX 1000 1000 km WITHHASH")),
	tc("georadius family",
		c("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento"),
		c("GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH"), c("GEORADIUS Sicily 15 37 200 km WITHDIST DESC"),
		c("GEORADIUS Sicily 15 37 200 km COUNT 1"), c("GEORADIUS Sicily 15 37 200 km COUNT 2 ANY"),
		c("GEORADIUS Sicily 15 37 200 km ANY"), c("GEORADIUS Sicily 15 37 200 km COUNT 0"), c("GEORADIUS Sicily 15 37 200 km COUNT x"),
		c("GEORADIUS Sicily 15 37 200 km COUNT"), c("GEORADIUS Sicily 15 37 -1 km"), c("GEORADIUS Sicily 15 37 x km"),
		c("GEORADIUS Sicily 15 37 1 yd"), c("GEORADIUS Sicily 200 37 1 km"), c("GEORADIUS Sicily 15 37 200 km BYBOX 1 1 km"),
		c("GEORADIUS Sicily 15 37 200 km STORE dst"), c("ZRANGE dst 0 -1 WITHSCORES"),
		c("GEORADIUS Sicily 15 37 200 km STOREDIST dst ASC COUNT 2"), c("ZRANGE dst 0 -1 WITHSCORES"),
		c("GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST"), c("GEORADIUS Sicily 15 37 1 m STORE dst"), c("EXISTS dst"),
		c("GEORADIUS_RO Sicily 15 37 200 km STORE dst"), c("GEORADIUS_RO Sicily 15 37 200 km WITHDIST"),
		c("GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST"), c("GEORADIUSBYMEMBER Sicily nosuch 200 km"),
		c("GEORADIUSBYMEMBER Sicily Palermo -2 km"), c("GEORADIUSBYMEMBER_RO Sicily Agrigento 100 km WITHCOORD"),
		c("GEORADIUSBYMEMBER nosuch a -2 yd"), c("GEORADIUSBYMEMBER nosuch a 1 km STORE dst"), c("GEORADIUS nosuch 1 1 1 km"),
		c("GEORADIUS nosuch 1 1 1 km STORE Sicily"), c("EXISTS Sicily")),
	tc("geosearch",
		c("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento"),
		c("GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHCOORD WITHDIST WITHHASH"),
		c("GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km DESC WITHDIST"),
		c("GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 200 100 km"), c("GEOSEARCH Sicily FROMMEMBER nosuch BYBOX 200 100 km"),
		c("GEOSEARCH Sicily BYRADIUS 1 km"), c("GEOSEARCH Sicily FROMMEMBER Palermo"), c("geosearch Sicily FROMMEMBER Palermo"),
		c("GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 1 1 BYRADIUS 1 km"), c("GEOSEARCH Sicily FROMLONLAT 1 1 FROMMEMBER Palermo BYRADIUS 1 km"),
		c("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km BYBOX 1 1 km"), c("GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 1 1 km BYRADIUS 1 km"),
		c("GEOSEARCH Sicily FROMMEMBER Palermo BYBOX -1 1 km"), c("GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 1 x km"),
		c("GEOSEARCH Sicily FROMMEMBER Palermo BYBOX x 1 km"), c("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km STORE d"),
		c("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km STOREDIST"), c("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 500 km COUNT 1 ANY"),
		c("GEOSEARCH nosuch FROMMEMBER x BYRADIUS 1 km"), c("GEOSEARCH nosuch FROMMEMBER x BYRADIUS -1 km"),
		c("GEOSEARCH nosuch FROMMEMBER x"), c("GEOSEARCH Sicily FROMLONLAT 200 1 BYRADIUS 1 km"),
		c("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 2 STOREDIST"), c("ZRANGE dst 0 -1 WITHSCORES"),
		c("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 400 km"), c("ZRANGE dst 0 -1 WITHSCORES"),
		c("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 400 km WITHDIST"), c("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 m"),
		c("EXISTS dst"), c("GEOSEARCHSTORE dst nosuch FROMLONLAT 15 37 BYRADIUS 1 m"), c("GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 m STORE x")),
	tc("geo ties keep Redis's order",
		c("GEOADD g 10 10 a 10 10 b 10 10 c 10 10 d 10 10 e 10 10 f 10 10 g 10 10 h 10.001 10 i 10.001 10 j"),
		c("GEOSEARCH g FROMLONLAT 10 10 BYRADIUS 10 km ASC"), c("GEOSEARCH g FROMLONLAT 10 10 BYRADIUS 10 km DESC"),
		c("GEOSEARCH g FROMLONLAT 10 10 BYRADIUS 10 km ASC COUNT 3"), c("GEOSEARCH g FROMLONLAT 10 10 BYRADIUS 10 km DESC COUNT 9"),
		c("GEOSEARCH g FROMLONLAT 10 10 BYRADIUS 10 km COUNT 4 ANY")),
}

// geoOnce are cases sent only as they are.
var geoOnce = []diffCase{
	notifyCase("geo notifications", "KEAn",
		c("GEOADD g 1 1 a"), recv(1, 4), c("GEOADD g 1 1 a"), c("GEOADD g 2 2 a"), recv(1, 2),
		c("GEORADIUS g 1 1 1000 km STORE d"), recv(1, 4), c("GEOSEARCHSTORE d g FROMLONLAT 1 1 BYRADIUS 1000 km"), recv(1, 2),
		c("GEOSEARCHSTORE d g FROMLONLAT 50 50 BYRADIUS 1 km"), recv(1, 2), c("GEOSEARCH g FROMLONLAT 1 1 BYRADIUS 1 km"),
		c("GEOPOS nosuch a"), c("ZADD marker 1 m"), recv(1, 4)),
}

func TestDiffGeo(t *testing.T) {
	redistest.Require(t)
	p := newPair(t, "")
	for _, g := range []caseGroup{{"geo", geoCases}, {"geo once", geoOnce}, {"geo via", allVia(geoCases)}} {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}

// TestDiffRandomGeo sends generated geo cases: hundreds of points per
// case (clusters, duplicates, the poles' and the antimeridian's edges,
// invalid coordinates) and searches of every form and option, with
// radii from zero to the whole Earth. Seeded: rerun with -diff.seed.
func TestDiffRandomGeo(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	p := newPair(t, "")
	for _, g := range []caseGroup{
		{"geo", randomGeoCases(r, 40)},
		{"geo via", randomVia(r, randomGeoCases(r, 20))},
		{"plain scores", randomGeoScoreCases(r, 30)},
	} {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}

// geoCoord is a random coordinate in [-limit, limit], often at or near
// the edges, sometimes past them or not a number.
func geoCoord(r *rand.Rand, limit float64, center float64, spread float64) string {
	switch r.IntN(20) {
	case 0:
		return []string{"x", "inf", "-inf", "nan", "1e400", "", " 1"}[r.IntN(7)]
	case 1:
		e := []float64{limit, -limit, limit + 1e-6, -limit - 1e-6, 0, limit - 1e-9, -limit + 1e-9}[r.IntN(7)]
		return strconv.FormatFloat(e, 'f', -1, 64)
	case 2, 3:
		return strconv.FormatFloat((r.Float64()*2-1)*limit, 'f', r.IntN(12), 64)
	}
	v := center + (r.Float64()*2-1)*spread
	v = max(min(v, limit), -limit)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func randomGeoCases(r *rand.Rand, n int) []diffCase {
	const latMax = 85.05112878
	units := []string{"m", "km", "ft", "mi", "M", "KM", "yd"}
	radius := func() string {
		return []string{"0", "1", "100", "1500", "25", "300", "2000", "5000", "20000", "-1", "x", "1e10", "0.5"}[r.IntN(13)]
	}
	var cases []diffCase
	for i := range n {
		// A cluster centre: anywhere, or at a pole or the antimeridian.
		cLon := []float64{(r.Float64()*2 - 1) * 180, 180, -180, 179.99, 0}[r.IntN(5)]
		cLat := []float64{(r.Float64()*2 - 1) * latMax, latMax, -latMax, 84.9, 0}[r.IntN(5)]
		spread := []float64{0.001, 0.1, 2, 30, 180}[r.IntN(5)]
		size := []int{3, 20, 120, 300, 600}[r.IntN(5)]
		var steps []step
		for len(steps) < size/10+1 {
			args := []string{"GEOADD", "g"}
			if r.IntN(10) == 0 {
				args = append(args, []string{"NX", "XX", "CH"}[r.IntN(3)])
			}
			for range 10 {
				lon := geoCoord(r, 180, cLon, spread)
				lat := geoCoord(r, latMax, cLat, spread/2)
				m := fmt.Sprintf("m%d", r.IntN(size*2))
				args = append(args, lon, lat, m)
				if r.IntN(5) == 0 { // the same place under another name
					args = append(args, lon, lat, m+"d")
				}
			}
			steps = append(steps, cmd(args...))
		}
		member := func() string { return fmt.Sprintf("m%d", r.IntN(size*2)) }
		for range 30 {
			switch r.IntN(9) {
			case 0:
				steps = append(steps, cmd("GEOPOS", "g", member(), member(), member()))
			case 1:
				steps = append(steps, cmd("GEOHASH", "g", member(), member()))
			case 2:
				steps = append(steps, cmd("GEODIST", "g", member(), member(), units[r.IntN(len(units))]))
			default:
				steps = append(steps, randomGeoSearch(r, cLon, cLat, spread, member, radius, units)...)
			}
		}
		cases = append(cases, tc(fmt.Sprintf("geo %d", i), steps...))
	}
	return cases
}

func randomGeoSearch(r *rand.Rand, cLon, cLat, spread float64, member func() string, radius func() string, units []string) []step {
	const latMax = 85.05112878
	unit := func() string {
		if r.IntN(20) == 0 {
			return units[6]
		}
		return units[r.IntN(6)]
	}
	var opts []string
	for range r.IntN(4) {
		switch r.IntN(8) {
		case 0, 1:
			opts = append(opts, []string{"ASC", "DESC", "asc"}[r.IntN(3)])
		case 2, 3:
			opts = append(opts, "COUNT", []string{"1", "2", "5", "50", "0", "x"}[r.IntN(6)])
			if r.IntN(3) == 0 {
				opts = append(opts, "ANY")
			}
		default:
			opts = append(opts, []string{"WITHDIST", "WITHCOORD", "WITHHASH"}[r.IntN(3)])
		}
	}
	lon := geoCoord(r, 180, cLon, spread)
	lat := geoCoord(r, latMax, cLat, spread/2)
	var args []string
	store := ""
	switch r.IntN(6) {
	case 0:
		args = append([]string{"GEORADIUS", "g", lon, lat, radius(), unit()}, opts...)
		if r.IntN(4) == 0 {
			store = "dst"
			args = append(args, []string{"STORE", "STOREDIST"}[r.IntN(2)], store)
		}
	case 1:
		args = append([]string{"GEORADIUSBYMEMBER", "g", member(), radius(), unit()}, opts...)
	case 2:
		args = append([]string{[]string{"GEORADIUS_RO", "GEORADIUSBYMEMBER_RO"}[r.IntN(2)], "g"}, args...)
		if args[0] == "GEORADIUS_RO" {
			args = append(args, lon, lat)
		} else {
			args = append(args, member())
		}
		args = append(append(args, radius(), unit()), opts...)
	default:
		var from, by []string
		if r.IntN(2) == 0 {
			from = []string{"FROMMEMBER", member()}
		} else {
			from = []string{"FROMLONLAT", lon, lat}
		}
		if r.IntN(2) == 0 {
			by = []string{"BYRADIUS", radius(), unit()}
		} else {
			by = []string{"BYBOX", radius(), radius(), unit()}
		}
		rest := append(append(from, by...), opts...)
		if r.IntN(3) == 0 {
			store = "dst"
			args = append([]string{"GEOSEARCHSTORE", store, "g"}, rest...)
			if r.IntN(2) == 0 {
				args = append(args, "STOREDIST")
			}
		} else {
			args = append([]string{"GEOSEARCH", "g"}, rest...)
		}
	}
	steps := []step{cmd(args...)}
	if store != "" {
		steps = append(steps, cmd("ZRANGE", store, "0", "-1", "WITHSCORES"))
	}
	return steps
}

// randomGeoScoreCases give a geo command sorted sets that ZADD filled
// with any scores (negative, fractional, past 2^52, 2^63 and 2^64,
// infinite): every score decodes somewhere, through C's conversion of a
// double to an unsigned integer.
func randomGeoScoreCases(r *rand.Rand, n int) []diffCase {
	score := func() string {
		switch r.IntN(6) {
		case 0:
			return []string{"inf", "-inf", "0", "-0", "9223372036854775808", "18446744073709551616", "-9223372036854775808", "1e300", "-1e300"}[r.IntN(9)]
		case 1:
			return strconv.FormatFloat(r.NormFloat64()*1e19, 'g', -1, 64)
		case 2:
			return strconv.FormatFloat(-r.Float64()*1e16, 'f', r.IntN(4), 64)
		}
		return strconv.FormatUint(r.Uint64()>>r.IntN(20), 10)
	}
	var cases []diffCase
	for i := range n {
		args := []string{"ZADD", "z"}
		for j := range 2 + r.IntN(150) {
			args = append(args, score(), fmt.Sprintf("m%d", j))
		}
		steps := []step{cmd(args...)}
		m := func() string { return fmt.Sprintf("m%d", r.IntN(len(args)/2)) }
		for range 10 {
			switch r.IntN(5) {
			case 0:
				steps = append(steps, cmd("GEOPOS", "z", m(), m()))
			case 1:
				steps = append(steps, cmd("GEOHASH", "z", m(), m()))
			case 2:
				steps = append(steps, cmd("GEODIST", "z", m(), m(), "km"))
			default:
				steps = append(steps, cmd("GEOSEARCH", "z", "FROMMEMBER", m(), "BYRADIUS",
					[]string{"10", "1000", "20000"}[r.IntN(3)], "km", "WITHHASH", "WITHCOORD", "WITHDIST", "ASC"))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("scores %d", i), steps...))
	}
	return cases
}
