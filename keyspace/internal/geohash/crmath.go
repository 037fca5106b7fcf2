package geohash

import "math"

// Correctly rounded sin, cos and asin for the distance formula. Redis's
// distances come from glibc's libm, whose results are the correctly
// rounded ones in all but vanishingly rare cases; Go's math package is a
// different approximation (an ulp or two off now and then), which STOREDIST
// and WITHDIST would show. These evaluate in double-double arithmetic
// (about 106 bits) and round once.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p, e)
}

// ddDivF divides by a small exact integer-valued float64.
func ddDivF(a dd, b float64) dd {
	q1 := a.hi / b
	p := q1 * b
	pe := math.FMA(q1, b, -p)
	r := dd{a.hi - p, 0} // exact: p is within an ulp of a.hi
	r.hi -= pe
	r.hi += a.lo
	q2 := r.hi / b
	return quickTwoSum(q1, q2)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

// pi/2 as three doubles.
const (
	pio2hi  = 1.5707963267948966
	pio2mid = 6.123233995736766e-17
	pio2lo  = -1.4973849048591698e-33
)

// reduce returns r and k with x = k*pi/2 + r, |r| <= pi/4 (about), for
// |x| up to a few times pi, the only range the distance formula uses.
func reduce(x float64) (dd, int) {
	k := math.Round(x / pio2hi)
	r := twoSum(x, -k*pio2hi) // k*pio2hi is exact for small k
	r = ddAdd(r, dd{-k * pio2mid, 0})
	r = ddAdd(r, dd{-k * pio2lo, 0})
	return r, int(k)
}

// sinCosDD are the Taylor series of sin and cos at a reduced argument.
func sinDD(r dd) dd {
	r2 := ddMul(r, r)
	t, s := r, r
	for n := 3.0; n < 60; n += 2 {
		t = ddDivF(ddDivF(ddMul(t, r2), n-1), n).neg()
		s = ddAdd(s, t)
		if math.Abs(t.hi) < 1e-36*math.Abs(s.hi) {
			break
		}
	}
	return s
}

func cosDD(r dd) dd {
	r2 := ddMul(r, r)
	t, s := dd{1, 0}, dd{1, 0}
	for n := 2.0; n < 60; n += 2 {
		t = ddDivF(ddDivF(ddMul(t, r2), n-1), n).neg()
		s = ddAdd(s, t)
		if math.Abs(t.hi) < 1e-36 {
			break
		}
	}
	return s
}

// sinX and cosX are sin(x) and cos(x) in double-double.
func sinX(x float64) dd {
	r, k := reduce(x)
	switch k & 3 {
	case 0:
		return sinDD(r)
	case 1:
		return cosDD(r)
	case 2:
		return sinDD(r).neg()
	}
	return cosDD(r).neg()
}

func cosX(x float64) dd {
	r, k := reduce(x)
	switch k & 3 {
	case 0:
		return cosDD(r)
	case 1:
		return sinDD(r).neg()
	case 2:
		return cosDD(r).neg()
	}
	return sinDD(r)
}

func (a dd) round() float64 { return a.hi + a.lo }

// crSin is sin(x), correctly rounded, for |x| up to about 2*pi (beyond,
// math.Sin).
func crSin(x float64) float64 {
	if !(math.Abs(x) <= 7) {
		return math.Sin(x)
	}
	if math.Abs(x) < 0x1p-26 {
		return x // sin x = x - x^3/6, and the cube is under half an ulp
	}
	return sinX(x).round()
}

// crCos is cos(x), correctly rounded, for |x| up to about 2*pi.
func crCos(x float64) float64 {
	if !(math.Abs(x) <= 7) {
		return math.Cos(x)
	}
	return cosX(x).round()
}

// crAsin is asin(y), correctly rounded, for y in [-1, 1]: one Newton step
// in double-double from an accurate start (atan2 keeps its precision near
// 1, where asin's own formula loses it).
func crAsin(y float64) float64 {
	if !(math.Abs(y) <= 1) {
		return math.NaN()
	}
	if y == 0 {
		return y
	}
	t0 := math.Atan2(y, math.Sqrt((1-y)*(1+y)))
	s := sinX(t0)
	c := cosX(t0).round()
	d := ((y - s.hi) - s.lo) / c
	return t0 + d
}
