package cmath

import "math"

// glibc's log10, sinh, cosh and tanh are not correctly rounded: they are
// fdlibm's formulas over log, exp and expm1, reproduced here step by step
// (each product rounded on its own, as glibc's x86-64 build does: the
// float64 conversions keep Go from fusing them). Their expm1 is fdlibm's,
// which Go's math.Expm1 is a port of.

// log10(2) with its low 13 bits cleared, so that k*log10_2hi is exact for
// any exponent k, and the rest; 1/ln(10).
const (
	log10of2hi = 0x1.34413509f6000p-2
	log10of2lo = 0x1.9fef311f12b36p-42
	invLn10    = 0x1.bcb7b1526e50ep-2
)

// Log10 is glibc's log10: log of the significand (in [1, 2), or [1/2, 1)
// for a negative exponent) times 1/ln(10), plus the exponent times
// log10(2) in two parts.
func Log10(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	k := 0
	if x < 0x1p-1022 {
		x *= 0x1p54
		k = -54
	}
	b := math.Float64bits(x)
	k += int(b>>52) - 1023
	i := 0
	if k < 0 {
		i = 1
	}
	m := math.Float64frombits(b&(1<<52-1) | uint64(1023-i)<<52)
	y := float64(k + i)
	z := float64(y*log10of2lo) + float64(invLn10*Log(m))
	return z + float64(y*log10of2hi)
}

// Thresholds of fdlibm's hyperbolic functions.
const (
	hyperBig  = 22                  // tanh rounds to +-1, cosh and sinh to exp(|x|)/2
	lnMax     = 0x1.62e42p+9        // exp(x) is finite below this (high word 0x40862e42)
	ovflThres = 0x1.633ce8fb9f87dp9 // cosh and sinh overflow above this
)

// Sinh is glibc's sinh.
func Sinh(x float64) float64 {
	if x != x || math.IsInf(x, 0) {
		return x
	}
	h := 0.5
	if math.Signbit(x) {
		h = -0.5
	}
	a := math.Abs(x)
	switch {
	case a < hyperBig:
		if a < 0x1p-28 {
			return x
		}
		t := math.Expm1(a)
		if a < 1 {
			return h * (2*t - float64(t*t)/(t+1))
		}
		return h * (t + t/(t+1))
	case a < lnMax:
		return h * Exp(a)
	case a <= ovflThres:
		w := Exp(0.5 * a)
		t := h * w
		return t * w
	}
	return x * math.Inf(1)
}

// Cosh is glibc's cosh.
func Cosh(x float64) float64 {
	if x != x {
		return x * x
	}
	a := math.Abs(x)
	switch {
	case a < 0x1.62e43p-2: // 0.5*ln(2), high word 0x3fd62e43
		if a < 0x1p-55 {
			return 1
		}
		t := math.Expm1(a)
		w := 1 + t
		return 1 + float64(t*t)/(w+w)
	case a < hyperBig:
		t := Exp(a)
		return float64(0.5*t) + 0.5/t
	case a < lnMax:
		return 0.5 * Exp(a)
	case a <= ovflThres:
		w := Exp(0.5 * a)
		t := 0.5 * w
		return t * w
	}
	return math.Inf(1)
}

// Tanh is glibc's tanh.
func Tanh(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(1, x)
	case x == 0:
		return x
	}
	a := math.Abs(x)
	var z float64
	switch {
	case a >= hyperBig:
		z = 1
	case a < 0x1p-55:
		return x * (1 + x)
	case a >= 1:
		t := math.Expm1(2 * a)
		z = 1 - 2/(t+2)
	default:
		t := math.Expm1(-2 * a)
		z = -t / (t + 2)
	}
	if x < 0 {
		return -z
	}
	return z
}
