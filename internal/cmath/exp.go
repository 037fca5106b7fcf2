package cmath

import (
	"math"
	"math/big"
)

// ln 2 in three parts and 1/ln 2 (computed with 400-bit arithmetic).
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

// expPartsSlow splits exp(x) = 2^k * (1+u) with u kept to about 100 bits
// relative to itself, by squaring: exp(r) = exp(r/2^10)^(2^10). It only
// builds expTable.
func expPartsSlow(x dd) (int, dd) {
	k := math.Round(x.hi * invLn2)
	r := sub(x, twoProd(k, ln2a))
	r = sub(r, twoProd(k, ln2b))
	r = sub(r, dd{k * ln2c, 0})
	// The series for r/2^10 (|r| < 2^-11) needs 9 terms; each squaring
	// doubles the relative error.
	const halvings = 10
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

// expTable[j] is 2^(j/expN) - 1 as a double-double.
const expN = 256

var expTable = func() (t [expN]dd) {
	for j := range t {
		// j/N * ln2 in double-double
		a := add(twoProd(float64(j)/expN, ln2a), dd{float64(j) / expN * ln2b, 0})
		k, u := expPartsSlow(a)
		if k == 1 { // 2(1+u) - 1
			u = add(dd{1, 0}, scale(u, 1))
		}
		t[j] = u
	}
	return t
}()

// expParts splits exp(x) = 2^k * (1+u), u to about 2^-95 relative to
// itself (so that log can use exp(x)-1 near x = 0). x is a double-double
// with |x.hi| < 750. x = (k*N + j) ln2/N + r with |r| <= ln2/(2N), and
// exp(r)-1 is a series whose high terms need double-double and whose low
// ones do not.
func expParts(x dd) (int, dd) {
	if math.Abs(x.hi) < 0x1p-900 {
		return 0, x // exp(x)-1 = x to far below a double's precision
	}
	kn := math.Round(x.hi * (invLn2 * expN))
	r := sub(x, twoProd(kn, ln2a/expN))
	r = sub(r, twoProd(kn, ln2b/expN))
	r.lo -= kn * (ln2c / expN)
	// |r| < 1.4e-3: terms from r^4/24 (< 2^-40) on are computed in
	// double, r^8/8! is below 2^-90.
	h := r.hi
	p := h * (1.0/24 + h*(1.0/120+h*(1.0/720+h*(1.0/5040+h*(1.0/40320)))))
	t := add(invFact[3], dd{p, 0})
	t = add(mul(t, r), invFact[2])
	t = add(mul(t, r), dd{1, 0})
	u := mul(t, r)
	ki := int(kn)
	j := ki & (expN - 1)
	k := (ki - j) / expN
	if j != 0 {
		// (1+T)(1+u) - 1 = T + u + T*u
		T := expTable[j]
		u = add(T, add(u, mul(T, u)))
	}
	return k, u
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

// logDD is log(x) for a positive finite x, to about 2^-95: Go's log,
// then one Newton step using exp.
func logDD(x float64) dd {
	adj := 0
	if x < 0x1p-1022 {
		// Go's amd64 math.Log is far off for subnormal numbers.
		x *= 0x1p54
		adj = -54
	}
	y0 := math.Log(x)
	k, u := expParts(dd{y0, 0})
	// x/exp(y0) - 1 = (x*2^-k - 1 - u) / (1+u); x*2^-k is within a few
	// ulps of 1+u, so x*2^-k - 1 is exact, and so is most of the
	// subtraction of u. The quotient t is within an ulp or two of y0,
	// so a double is plenty for it.
	m := math.Ldexp(x, -k)
	d := sub(dd{m - 1, 0}, u)
	t := (d.hi + d.lo) / (1 + u.hi)
	// log(1+t) = t - t^2/2 + ...
	r := twoSum(y0, t-t*t/2)
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
