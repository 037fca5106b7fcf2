package cmath

import (
	"math"
	"math/big"
	"math/bits"
)

// ln 2 and pi/2 in three parts each (computed with 400-bit arithmetic).
const (
	ln2a   = 0x1.62e42fefa39efp-1
	ln2b   = 0x1.abc9e3b39803fp-56
	ln2c   = 0x1.7b57a079a1934p-111
	invLn2 = 0x1.71547652b82fep+0
)

// invFact[n] is 1/n! as a double-double.
var invFact = func() (t [28]dd) {
	f := 1.0
	for n := range t {
		if n > 0 {
			f *= float64(n)
		}
		if n <= 22 { // n! is exact in a double up to 22!
			t[n] = div(dd{1, 0}, dd{f, 0})
		} else {
			t[n] = div(t[n-1], dd{float64(n), 0})
		}
	}
	return t
}()

// expParts splits exp(x) = 2^k * (1+u) with u kept to about 100 bits
// relative to itself (so that log can use exp(x)-1 near x = 0). x is a
// double-double with |x.hi| < 750.
func expParts(x dd) (int, dd) {
	k := math.Round(x.hi * invLn2)
	r := sub(x, twoProd(k, ln2a))
	r = sub(r, twoProd(k, ln2b))
	r = sub(r, dd{k * ln2c, 0})
	// exp(r) = exp(r/2^10)^(2^10); the series for r/2^10 (|r| < 2^-11)
	// needs 9 terms, each squaring doubles the relative error.
	const halvings = 10
	if math.Abs(r.hi) < 0x1p-900 {
		return int(k), r // exp(r)-1 = r to far below a double's precision
	}
	r = scale(r, -halvings)
	u := invFact[9]
	for n := 8; n >= 1; n-- {
		u = add(mul(u, r), invFact[n])
	}
	u = mul(u, r)
	for i := 0; i < halvings; i++ {
		// (1+u)^2 = 1 + (2u + u^2)
		u = add(scale(u, 1), mul(u, u))
	}
	return int(k), u
}

// roundScaled is the double nearest (1+u)*2^k, rounded once even when
// the result is subnormal or (1+u) is within 2^-106 of half-way between
// two doubles, where adding 1 to u as double-doubles would lose the side.
func roundScaled(u dd, k int) float64 {
	s := twoSum(1, u.hi)
	f := twoSum(s.lo, u.lo)
	r := twoSum(s.hi, f.hi) // 1+u = r.hi + r.lo + f.lo exactly
	v := r.hi
	if f.lo != 0 && r.lo != 0 && (f.lo > 0) == (r.lo > 0) {
		// r.hi + r.lo may be exactly half-way to the neighbour on r.lo's
		// side, and f.lo pushes it past.
		if nb := math.Nextafter(r.hi, math.Copysign(math.Inf(1), r.lo)); nb-r.hi == 2*r.lo {
			v = nb
		}
	}
	if x := math.Ldexp(v, k); math.Abs(x) >= 0x1p-1022 || math.IsInf(x, 0) {
		return x
	}
	var a, b big.Float
	a.SetPrec(2200).SetFloat64(1)
	for _, p := range []float64{u.hi, u.lo} {
		a.Add(&a, b.SetFloat64(p))
	}
	a.SetMantExp(&a, k)
	x, _ := a.Float64()
	return x
}

// expDD is exp(x) rounded to a double, for a double-double argument.
func expDD(x dd) float64 {
	switch {
	case x.hi != x.hi:
		return x.hi
	case x.hi > 710:
		return math.Inf(1)
	case x.hi < -746:
		return 0
	case math.Abs(x.hi) < 0x1p-60:
		return 1 // 1+x rounds to 1
	}
	k, u := expParts(x)
	return roundScaled(u, k)
}

// Exp is glibc's exp: correctly rounded.
func Exp(x float64) float64 {
	if x != x {
		return x
	}
	return expDD(dd{x, 0})
}

// logDD is log(x) for a positive finite x, to about 100 bits: Go's
// log then one Newton step using exp.
func logDD(x float64) dd {
	adj := 0
	if x < 0x1p-1022 {
		x *= 0x1p54
		adj = -54
	}
	y0 := math.Log(x)
	k, u := expParts(dd{y0, 0})
	// x/exp(y0) - 1 = (x*2^-k - 1 - u) / (1+u); x*2^-k is within a few
	// ulps of 1+u, so x*2^-k - 1 is exact.
	m := math.Ldexp(x, -k)
	t := div(sub(dd{m - 1, 0}, u), add(dd{1, 0}, u))
	// log(1+t) = t - t^2/2 + t^3/3 ..., |t| < 2^-40
	lt := sub(t, scale(mul(t, t), -1))
	r := add(dd{y0, 0}, lt)
	if adj != 0 {
		a := float64(adj)
		r = add(r, add(twoProd(a, ln2a), twoProd(a, ln2b)))
	}
	return r
}

// Log is glibc's log: correctly rounded, NaN for x < 0 (the sign of
// that NaN is the caller's business).
func Log(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case x == 1:
		return 0
	}
	return logDD(x).round()
}

// Pow is glibc's pow: the special cases of C99 Annex F (which Go's
// math.Pow also follows) and a correctly rounded result otherwise, with
// exact and half-way cases of integer exponents rounded exactly.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case x != x || y != y || x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) || y == 1:
		return math.Pow(x, y)
	}
	sign := 1.0
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		x = -x
		if math.Abs(y) < 1<<53 && math.Mod(y, 2) != 0 {
			sign = -1
		}
	}
	if r, ok := powExact(x, y); ok {
		return sign * r
	}
	l := logDD(x)
	if z := l.hi * y; math.Abs(z) > 800 {
		return sign * expDD(dd{z, 0}) // an infinity or a zero
	}
	return sign * expDD(mulF(l, y))
}

// powExact is x^y for an integer y when it fits in 64 bits of
// significand (y >= 2, or any y for a power of two), computed exactly and
// rounded once: these are the results that can be exact or exactly
// half-way between two doubles (2^-1075 is half the least subnormal),
// where an approximation, however close, may round the wrong way.
func powExact(x, y float64) (float64, bool) {
	if y != math.Trunc(y) {
		return 0, false
	}
	fr, e := math.Frexp(x)
	m := uint64(fr * (1 << 53))
	e -= 53
	tz := bits.TrailingZeros64(m)
	m >>= tz
	e += tz
	if m == 1 {
		switch p := float64(e) * y; {
		case p > 1100:
			return math.Inf(1), true
		case p < -1100:
			return 0, true
		}
		return powExactRound(1, e*int(y)), true
	}
	if y < 2 || y > 64 {
		return 0, false
	}
	n := int(y)
	if n*(bits.Len64(m)-1)+1 > 64 {
		return 0, false
	}
	p := uint64(1)
	for i := 0; i < n; i++ {
		hi, lo := bits.Mul64(p, m)
		if hi != 0 {
			return 0, false
		}
		p = lo
	}
	return powExactRound(p, e*n), true
}

// powExactRound is p*2^e rounded once.
func powExactRound(p uint64, e int) float64 {
	switch n := e + bits.Len64(p); {
	case n > 1100:
		return math.Inf(1)
	case n <= -1021: // subnormal or zero
		var a big.Float
		a.SetUint64(p)
		a.SetMantExp(&a, e)
		f, _ := a.Float64()
		return f
	}
	return math.Ldexp(float64(p), e)
}
