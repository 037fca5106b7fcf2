// Package geohash is Redis 7.0's geohash.c and geohash_helper.c: the
// 52-bit interleaved scores of the geo commands, the nine cells a search
// visits, and the haversine distances, operation for operation as the C
// code does them (the float64 conversions keep the compiler from fusing a
// multiply and an add that C rounds separately).
package geohash

import "math"

const (
	StepMax = 26 // 26*2 = 52 bits
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	LongMin = -180.0
	LongMax = 180.0

	EarthRadius      = 6372797.560856
	mercatorMax      = 20037726.37
	CircularType     = 1
	RectangleType    = 2
	mask55           = 0x5555555555555555
	maskAA           = 0xaaaaaaaaaaaaaaaa
	defaultLongRange = LongMax - LongMin
)

// Bits is a hash of step*2 bits.
type Bits struct {
	Bits uint64
	Step uint8
}

// IsZero is HASHISZERO.
func (h Bits) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Range is a coordinate interval.
type Range struct{ Min, Max float64 }

// Area is a hash's cell.
type Area struct {
	Hash      Bits
	Long, Lat Range
}

// dr is D_R, M_PI / 180.0 divided in double precision as C does (a Go
// constant expression would divide exactly and round once).
var pi = math.Pi
var dr = pi / 180.0

var (
	longRange = Range{LongMin, LongMax}
	latRange  = Range{LatMin, LatMax}
)

func interleave64(xlo, ylo uint32) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	s := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | x<<s[i]) & b[i]
		y = (y | y<<s[i]) & b[i]
	}
	return x | y<<1
}

func deinterleave64(in uint64) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	s := [...]uint{0, 1, 2, 4, 8, 16}
	x, y := in, in>>1
	for i := range 6 {
		x = (x | x>>s[i]) & b[i]
		y = (y | y>>s[i]) & b[i]
	}
	return x | y<<32
}

// Encode is geohashEncode with the ranges given; false outside them (or
// outside Redis's WGS84 limits, which it checks first).
func Encode(lr, ar Range, long, lat float64, step uint8) (Bits, bool) {
	if step > 32 || step == 0 || (ar.Min == 0 && ar.Max == 0) || (lr.Min == 0 && lr.Max == 0) {
		return Bits{}, false
	}
	if long > LongMax || long < LongMin || lat > LatMax || lat < LatMin {
		return Bits{}, false
	}
	if lat < ar.Min || lat > ar.Max || long < lr.Min || long > lr.Max {
		return Bits{Step: step}, false
	}
	latOff := (lat - ar.Min) / (ar.Max - ar.Min)
	longOff := (long - lr.Min) / (lr.Max - lr.Min)
	latOff *= float64(uint64(1) << step)
	longOff *= float64(uint64(1) << step)
	return Bits{interleave64(uint32(latOff), uint32(longOff)), step}, true
}

// EncodeWGS84 encodes with Redis's ranges.
func EncodeWGS84(long, lat float64, step uint8) (Bits, bool) {
	return Encode(longRange, latRange, long, lat, step)
}

// Decode is geohashDecode with Redis's ranges.
func Decode(h Bits) (Area, bool) {
	if h.IsZero() {
		return Area{}, false
	}
	sep := deinterleave64(h.Bits)
	latScale := latRange.Max - latRange.Min
	longScale := longRange.Max - longRange.Min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	div := float64(uint64(1) << h.Step)
	a := Area{Hash: h}
	a.Lat.Min = latRange.Min + float64(float64(ilato)*1.0/div)*latScale
	a.Lat.Max = latRange.Min + float64(float64(ilato+1)*1.0/div)*latScale // uint32 wraps, as in C
	a.Long.Min = longRange.Min + float64(float64(ilono)*1.0/div)*longScale
	a.Long.Max = longRange.Min + float64(float64(ilono+1)*1.0/div)*longScale
	return a, true
}

// Center is geohashDecodeAreaToLongLat: the cell's middle, clamped to the
// limits.
func (a Area) Center() (long, lat float64) {
	long = (a.Long.Min + a.Long.Max) / 2
	long = min(max(long, LongMin), LongMax)
	lat = (a.Lat.Min + a.Lat.Max) / 2
	lat = min(max(lat, LatMin), LatMax)
	return long, lat
}

// ScoreToBits is C's (uint64_t) of a double score as gcc compiles it on
// x86-64: truncation, the signed conversion below 2^63 (negatives wrap),
// 2^63 added back above, and the "integer indefinite" value for what
// does not fit.
func ScoreToBits(score float64) uint64 {
	const two63 = 9223372036854775808.0
	cvt := func(x float64) uint64 {
		if x != x || x >= two63 || x < -two63 {
			return 1 << 63
		}
		return uint64(int64(x))
	}
	if !(score >= two63) { // NaN takes this branch too, as comisd's unordered result does
		return cvt(score)
	}
	return cvt(score-two63) ^ 1<<63
}

// DecodeScore is decodeGeohash: a member's score to its longitude and
// latitude. Every score decodes (the step is never zero).
func DecodeScore(score float64) (long, lat float64) {
	a, _ := Decode(Bits{ScoreToBits(score), StepMax})
	return a.Center()
}

// Align52 is geohashAlign52Bits.
func Align52(h Bits) uint64 { return h.Bits << (52 - uint(h.Step)*2) }

func moveX(h *Bits, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & maskAA
	y := h.Bits & mask55
	zz := uint64(mask55) >> (64 - uint(h.Step)*2)
	if d > 0 {
		x = x + (zz + 1)
	} else {
		x = x | zz
		x = x - (zz + 1)
	}
	x &= uint64(maskAA) >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

func moveY(h *Bits, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & maskAA
	y := h.Bits & mask55
	zz := uint64(maskAA) >> (64 - uint(h.Step)*2)
	if d > 0 {
		y = y + (zz + 1)
	} else {
		y = y | zz
		y = y - (zz + 1)
	}
	y &= uint64(mask55) >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

// Neighbors are a cell's eight neighbours.
type Neighbors struct {
	North, East, West, South, NorthEast, SouthEast, NorthWest, SouthWest Bits
}

func neighbors(h Bits) Neighbors {
	n := Neighbors{h, h, h, h, h, h, h, h}
	moveX(&n.East, 1)
	moveX(&n.West, -1)
	moveY(&n.South, -1)
	moveY(&n.North, 1)
	moveX(&n.NorthWest, -1)
	moveY(&n.NorthWest, 1)
	moveX(&n.NorthEast, 1)
	moveY(&n.NorthEast, 1)
	moveX(&n.SouthEast, 1)
	moveY(&n.SouthEast, -1)
	moveX(&n.SouthWest, -1)
	moveY(&n.SouthWest, -1)
	return n
}

func degRad(a float64) float64 { return a * dr }
func radDeg(a float64) float64 { return a / dr }

// EstimateSteps is geohashEstimateStepsByRadius.
func EstimateSteps(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	step = min(max(step, 1), 26)
	return uint8(step)
}

// Shape is a search: a circle of Radius or a Width x Height box, in the
// unit Conversion converts to metres, around (Long, Lat).
type Shape struct {
	Type                  int
	Long, Lat             float64
	Conversion            float64
	Radius, Width, Height float64
	Bounds                [4]float64
}

// boundingBox is geohashBoundingBox.
func (s *Shape) boundingBox() {
	long, lat := s.Long, s.Lat
	var height, width float64
	if s.Type == CircularType {
		height = s.Conversion * s.Radius
		width = s.Conversion * s.Radius
	} else {
		height = s.Conversion * (s.Height / 2)
		width = s.Conversion * (s.Width / 2)
	}
	latDelta := radDeg(height / EarthRadius)
	longDeltaTop := radDeg(width / EarthRadius / libCos(degRad(lat+latDelta)))
	longDeltaBottom := radDeg(width / EarthRadius / libCos(degRad(lat-latDelta)))
	if lat < 0 {
		s.Bounds[0] = long - longDeltaBottom
		s.Bounds[2] = long + longDeltaBottom
	} else {
		s.Bounds[0] = long - longDeltaTop
		s.Bounds[2] = long + longDeltaTop
	}
	s.Bounds[1] = lat - latDelta
	s.Bounds[3] = lat + latDelta
}

// Cells is geohashCalculateAreasByShapeWGS84 followed by the order
// membersOfAllNeighbors visits them in: the centre, then N, S, E, W, NE,
// NW, SE, SW, each possibly zero (skipped).
func (s *Shape) Cells() [9]Bits {
	s.boundingBox()
	minLon, minLat, maxLon, maxLat := s.Bounds[0], s.Bounds[1], s.Bounds[2], s.Bounds[3]
	var radius float64
	if s.Type == CircularType {
		radius = s.Radius
	} else {
		radius = math.Sqrt(float64((s.Width/2)*(s.Width/2)) + float64((s.Height/2)*(s.Height/2)))
	}
	radius *= s.Conversion
	steps := EstimateSteps(radius, s.Lat)
	hash, _ := EncodeWGS84(s.Long, s.Lat, steps)
	nb := neighbors(hash)
	area, _ := Decode(hash)
	north, _ := Decode(nb.North)
	south, _ := Decode(nb.South)
	east, _ := Decode(nb.East)
	west, _ := Decode(nb.West)
	decrease := north.Lat.Max < maxLat || south.Lat.Min > minLat || east.Long.Max < maxLon || west.Long.Min > minLon
	if steps > 1 && decrease {
		steps--
		hash, _ = EncodeWGS84(s.Long, s.Lat, steps)
		nb = neighbors(hash)
		area, _ = Decode(hash)
	}
	if steps >= 2 {
		if area.Lat.Min < minLat {
			nb.South, nb.SouthWest, nb.SouthEast = Bits{}, Bits{}, Bits{}
		}
		if area.Lat.Max > maxLat {
			nb.North, nb.NorthEast, nb.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Long.Min < minLon {
			nb.West, nb.SouthWest, nb.NorthWest = Bits{}, Bits{}, Bits{}
		}
		if area.Long.Max > maxLon {
			nb.East, nb.SouthEast, nb.NorthEast = Bits{}, Bits{}, Bits{}
		}
	}
	return [9]Bits{hash, nb.North, nb.South, nb.East, nb.West, nb.NorthEast, nb.NorthWest, nb.SouthEast, nb.SouthWest}
}

// ScoreRange is scoresOfGeoHashBox: the scores [min, max) of a cell.
func ScoreRange(h Bits) (lo, hi uint64) {
	lo = Align52(h)
	h.Bits++
	return lo, Align52(h)
}

func latDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Within is geoWithinShape after the decoding: whether the point is in
// the shape, and its distance from the centre in metres.
func (s *Shape) Within(long, lat float64) (float64, bool) {
	if s.Type == CircularType {
		d := Distance(s.Long, s.Lat, long, lat)
		return d, !(d > s.Radius*s.Conversion)
	}
	width, height := s.Width*s.Conversion, s.Height*s.Conversion
	if latDistance(s.Lat, lat) > height/2 {
		return 0, false
	}
	// The east-west distance is measured along the point's own latitude.
	if Distance(long, lat, s.Long, lat) > width/2 {
		return 0, false
	}
	return Distance(s.Long, s.Lat, long, lat), true
}
