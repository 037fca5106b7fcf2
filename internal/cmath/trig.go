package cmath

import (
	"math"
	"math/big"
	"sync"
)

// pi/2 and pi in three parts each.
const (
	pio2a = 0x1.921fb54442d18p+0
	pio2b = 0x1.1a62633145c07p-54
	pio2c = -0x1.f1976b7ed8fbcp-110
	pia   = 0x1.921fb54442d18p+1
	pib   = 0x1.1a62633145c07p-53
)

// bigReduceMin: from here on the reduction by pi/2 goes through math/big
// (k*pio2c stops being negligible once k approaches 2^30).
const bigReduceMin = 0x1p28

var (
	bigPiOnce sync.Once
	bigTwoOPi *big.Float // 2/pi to bigPrec bits
	bigPiO2   *big.Float
)

// bigPrec covers the 1024 bits of a double's integer part, its 53 bits
// and 150 bits for the reduced argument.
const bigPrec = 1300

// atanInv is atan(1/n) to bigPrec bits by its Taylor series.
func atanInv(n int64) *big.Float {
	x := new(big.Float).SetPrec(bigPrec).Quo(big.NewFloat(1).SetPrec(bigPrec), new(big.Float).SetInt64(n))
	n2 := new(big.Float).SetPrec(bigPrec).SetInt64(n * n)
	sum := new(big.Float).SetPrec(bigPrec).Set(x)
	pow := new(big.Float).SetPrec(bigPrec).Set(x)
	term := new(big.Float).SetPrec(bigPrec)
	// 1/n^(2k+1) falls below 2^-bigPrec after bigPrec/(2 log2 n) terms.
	for k := int64(1); k < bigPrec; k++ {
		pow.Quo(pow, n2)
		if pow.MantExp(nil) < -bigPrec-8 {
			break
		}
		term.Quo(pow, new(big.Float).SetInt64(2*k+1))
		if k%2 == 1 {
			sum.Sub(sum, term)
		} else {
			sum.Add(sum, term)
		}
	}
	return sum
}

func initBigPi() {
	// Machin: pi/4 = 4 atan(1/5) - atan(1/239)
	a := atanInv(5)
	a.Mul(a, big.NewFloat(4))
	a.Sub(a, atanInv(239))
	bigPiO2 = new(big.Float).SetPrec(bigPrec).Mul(a, big.NewFloat(2))
	bigTwoOPi = new(big.Float).SetPrec(bigPrec).Quo(big.NewFloat(1).SetPrec(bigPrec), bigPiO2)
}

// reduce returns k mod 4 and r = x - k*pi/2 with |r| <= ~pi/4, r to
// about 100 bits relative to itself.
func reduce(x float64) (int, dd) {
	ax := math.Abs(x)
	if ax <= 0x1.921fb54442d18p-1 {
		return 0, dd{x, 0}
	}
	if ax < bigReduceMin {
		k := math.Round(x * (2 / math.Pi))
		r := sub(dd{x, 0}, twoProd(k, pio2a))
		r = sub(r, twoProd(k, pio2b))
		r = sub(r, dd{k * pio2c, 0})
		return int(int64(k) & 3), r
	}
	bigPiOnce.Do(initBigPi)
	q := new(big.Float).SetPrec(bigPrec).SetFloat64(x)
	q.Mul(q, bigTwoOPi)
	kf := new(big.Float).SetPrec(bigPrec)
	ki, _ := q.Int(nil) // truncates toward zero
	kf.SetInt(ki)
	f := new(big.Float).SetPrec(bigPrec).Sub(q, kf)
	half := big.NewFloat(0.5)
	if f.Cmp(half) > 0 {
		f.Sub(f, big.NewFloat(1))
		ki.Add(ki, big.NewInt(1))
	} else if f.Cmp(half.Neg(half)) < 0 {
		f.Add(f, big.NewFloat(1))
		ki.Sub(ki, big.NewInt(1))
	}
	f.Mul(f, bigPiO2)
	hi, _ := f.Float64()
	lo, _ := f.Sub(f, new(big.Float).SetFloat64(hi)).Float64()
	m := new(big.Int).And(ki, big.NewInt(3))
	return int(m.Int64()), dd{hi, lo}
}

// altSeries is sum_{n=0}^{top} (-1)^n z^n / (2n+off)! for z = r^2 with
// |r| <= pi/4: the terms from n = lowDD on are below 2^-36 and summed in
// double, the first ones in double-double (error about 2^-90).
func altSeries(z dd, off, lowDD, top int) dd {
	sd := 0.0
	for n := top; n >= lowDD; n-- {
		c := invFact[2*n+off].hi
		if n%2 == 1 {
			c = -c
		}
		sd = c + z.hi*sd
	}
	s := mul(z, dd{sd, 0})
	for n := lowDD - 1; n >= 0; n-- {
		c := invFact[2*n+off]
		if n%2 == 1 {
			c = neg(c)
		}
		s = add(c, s)
		if n > 0 {
			s = mul(z, s)
		}
	}
	return s
}

// sinDD and cosDD are Taylor series for |r| <= pi/4.
func sinDD(r dd) dd { return mul(r, altSeries(mul(r, r), 1, 6, 13)) }

func cosDD(r dd) dd { return altSeries(mul(r, r), 0, 7, 13) }

// sincosDD is sin and cos of any finite x.
func sincosDD(x float64) (dd, dd) {
	k, r := reduce(x)
	s, c := sinDD(r), cosDD(r)
	switch k {
	case 1:
		s, c = c, neg(s)
	case 2:
		s, c = neg(s), neg(c)
	case 3:
		s, c = neg(c), s
	}
	return s, c
}

// Sin is glibc's sin: correctly rounded; NaN for an infinity.
func Sin(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.NaN()
	case math.Abs(x) < 0x1p-27:
		return x // x - x^3/6 rounds to x
	}
	k, r := reduce(x)
	var v dd
	switch k {
	case 0:
		v = sinDD(r)
	case 1:
		v = cosDD(r)
	case 2:
		v = neg(sinDD(r))
	default:
		v = neg(cosDD(r))
	}
	return v.round()
}

// Cos is glibc's cos: correctly rounded; NaN for an infinity.
func Cos(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.NaN()
	case math.Abs(x) < 0x1p-27:
		return 1
	}
	k, r := reduce(x)
	var v dd
	switch k {
	case 0:
		v = cosDD(r)
	case 1:
		v = neg(sinDD(r))
	case 2:
		v = neg(cosDD(r))
	default:
		v = sinDD(r)
	}
	return v.round()
}

// Tan is glibc's tan: correctly rounded; NaN for an infinity.
func Tan(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.NaN()
	case math.Abs(x) < 0x1p-27:
		return x
	}
	k, r := reduce(x)
	s, c := sinDD(r), cosDD(r)
	if k&1 == 1 {
		return neg(div(c, s)).round()
	}
	return div(s, c).round()
}

// atan2DD is the angle of (x, y) for finite (x, y) != (0, 0): Go's atan2
// and one Newton step on f(t) = y cos t - x sin t.
func atan2DD(y, x dd) float64 {
	switch {
	case x.hi == 0:
		return math.Copysign(pio2a, y.hi)
	case y.hi == 0:
		if x.hi > 0 {
			return y.hi
		}
		return math.Copysign(pia, y.hi)
	}
	_, ey := math.Frexp(y.hi)
	_, ex := math.Frexp(x.hi)
	switch {
	case ey-ex > 60: // +-pi/2 - x/y
		q := x.hi / y.hi
		return add(dd{math.Copysign(pio2a, y.hi), math.Copysign(pio2b, y.hi)}, dd{-q, 0}).round()
	case ex-ey > 60:
		q := y.hi / x.hi
		if x.hi > 0 {
			return q
		}
		return add(dd{math.Copysign(pia, y.hi), math.Copysign(pib, y.hi)}, dd{q, 0}).round()
	}
	e := -max(ex, ey)
	y, x = scale(y, e), scale(x, e)
	t0 := math.Atan2(y.hi, x.hi)
	s, c := sincosDD(t0)
	num := sub(mul(y, c), mul(x, s))
	// The correction is within an ulp or two of t0: a double is plenty
	// for it, and for the denominator.
	den := x.hi*c.hi + y.hi*s.hi
	return twoSum(t0, (num.hi+num.lo)/den).round()
}

// Atan2 is glibc's atan2: C99's special cases, correctly rounded
// otherwise.
func Atan2(y, x float64) float64 {
	if y != y || x != x || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Atan2(y, x)
	}
	if x == 0 && y == 0 {
		return math.Atan2(y, x)
	}
	return atan2DD(dd{y, 0}, dd{x, 0})
}

// Atan is glibc's atan: correctly rounded.
func Atan(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(pio2a, x)
	case math.Abs(x) < 0x1p-27:
		return x // x - x^3/3 rounds to x
	}
	return atan2DD(dd{x, 0}, dd{1, 0})
}

// sqrt1mx2 is sqrt(1-x^2) for |x| < 1.
func sqrt1mx2(x float64) dd {
	return sqrtDD(sub(dd{1, 0}, twoProd(x, x)))
}

// Asin is glibc's asin: correctly rounded, NaN outside [-1, 1].
func Asin(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.Abs(x) > 1:
		return math.NaN()
	case math.Abs(x) == 1:
		return math.Copysign(pio2a, x)
	case math.Abs(x) < 0x1p-27:
		return x // x + x^3/6 rounds to x
	}
	return atan2DD(dd{x, 0}, sqrt1mx2(x))
}

// Acos is glibc's acos: correctly rounded, NaN outside [-1, 1].
func Acos(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.Abs(x) > 1:
		return math.NaN()
	case x == 1:
		return 0
	case x == -1:
		return pia
	}
	return atan2DD(sqrt1mx2(x), dd{x, 0})
}
