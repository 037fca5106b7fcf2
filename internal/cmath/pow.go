package cmath

import (
	"math"
	"runtime"

	"golang.org/x/sys/cpu"
)

// powFMA says which of glibc's two x86-64 pows this machine's glibc runs,
// so that minilock answers as a redis-server beside it would: its ifunc
// picks __pow_fma (e_pow.c built with -mfma -mavx2) on a CPU with FMA and
// AVX2, else __pow_sse2, which rounds about 2% of hard cases (ties,
// results near underflow) the other way. Other architectures' glibc
// always fuses.
var powFMA = runtime.GOARCH != "amd64" || cpu.X86.HasFMA && cpu.X86.HasAVX2

// mad is a*b+c as the C code's a*b+c compiles: fused in __pow_fma (GCC's
// -ffp-contract=fast), rounded twice in __pow_sse2.
func mad(a, b, c float64) float64 {
	if powFMA {
		return math.FMA(a, b, c)
	}
	return float64(a*b) + c
}

// Pow is glibc 2.36's pow: ARM's optimized-routines algorithm, log(x) to
// about 68 bits in a double and a tail, y times it, and exp of that. It is
// not correctly rounded, and Lua's ^ must give the very bits
// redis-server's does, so every operation is the C code's: math.FMA where
// it calls fma, mad where GCC may contract a*b+c, and float64(a*b) where
// it does not, so that Go's compiler cannot fuse on its own.
func Pow(x, y float64) float64 {
	var signBias uint64
	ix := math.Float64bits(x)
	iy := math.Float64bits(y)
	topx := ix >> 52
	topy := iy >> 52
	if topx-0x001 >= 0x7ff-0x001 || (topy&0x7ff)-0x3be >= 0x43e-0x3be {
		// x is subnormal, zero, negative, infinite or NaN, or |y| is
		// below 2^-65 or at least 2^63, or y is 0, infinite or NaN.
		if zeroInfNaN(iy) {
			switch {
			case 2*iy == 0:
				return 1
			case ix == 0x3ff0000000000000:
				return 1
			case 2*ix > 2*0x7ff0000000000000 || 2*iy > 2*0x7ff0000000000000:
				return x + y
			case 2*ix == 2*0x3ff0000000000000:
				return 1
			case (2*ix < 2*0x3ff0000000000000) == (iy>>63 == 0):
				return 0 // |x|<1 && y==inf or |x|>1 && y==-inf
			}
			return y * y
		}
		if zeroInfNaN(ix) {
			x2 := float64(x * x)
			if ix>>63 != 0 && checkInt(iy) == 1 {
				x2 = -x2
			}
			if iy>>63 != 0 {
				return 1 / x2
			}
			return x2
		}
		// x and y are finite and not zero.
		if ix>>63 != 0 {
			switch checkInt(iy) {
			case 0:
				return math.NaN() // glibc's (x-x)/(x-x): the default NaN
			case 1:
				signBias = 0x800 << 7
			}
			ix &= 0x7fffffffffffffff
			topx &= 0x7ff
		}
		if (topy&0x7ff)-0x3be >= 0x43e-0x3be {
			// y is even here if it is an integer at all.
			if ix == 0x3ff0000000000000 {
				return 1
			}
			if topy&0x7ff < 0x3be {
				// |y| < 2^-65: x^y ~= 1 + y*log(x).
				if ix > 0x3ff0000000000000 {
					return 1 + y
				}
				return 1 - y
			}
			if (ix > 0x3ff0000000000000) == (topy < 0x800) {
				return math.Inf(1)
			}
			return 0
		}
		if topx == 0 {
			// Normalize a subnormal x so that its exponent goes negative.
			ix = math.Float64bits(float64(x*0x1p52)) & 0x7fffffffffffffff
			ix -= 52 << 52
		}
	}
	hi, lo := powLog(ix)
	var ehi, elo float64
	if powFMA {
		ehi = float64(y * hi)
		elo = math.FMA(y, lo, math.FMA(y, hi, -ehi))
	} else {
		// Split y and hi into 26-bit halves whose products are exact.
		yhi := math.Float64frombits(iy & ^uint64(1<<27-1))
		ylo := y - yhi
		lhi := math.Float64frombits(math.Float64bits(hi) & ^uint64(1<<27-1))
		llo := hi - lhi + lo
		ehi = float64(yhi * lhi)
		elo = float64(ylo*lhi) + float64(y*llo)
	}
	return powExp(ehi, elo, signBias)
}

// zeroInfNaN says whether i is the bits of a zero, an infinity or a NaN.
func zeroInfNaN(i uint64) bool { return 2*i-1 >= 2*0x7ff0000000000000-1 }

// checkInt is 0 if the finite non-zero double with bits iy is not an
// integer, 1 if it is odd, 2 if it is even.
func checkInt(iy uint64) int {
	e := int(iy >> 52 & 0x7ff)
	switch {
	case e < 0x3ff:
		return 0
	case e > 0x3ff+52:
		return 2
	case iy&(1<<(0x3ff+52-e)-1) != 0:
		return 0
	case iy&(1<<(0x3ff+52-e)) != 0:
		return 1
	}
	return 2
}

// log's coefficients, scaled as the evaluation uses them (A[0] = -1/2).
const (
	powLn2hi = 0x1.62e42fefa3800p-1
	powLn2lo = 0x1.ef35793c76730p-45
	powA0    = -0x1p-1
	powA1    = 0x1.555555555556p-2 * -2
	powA2    = -0x1.0000000000006p-2 * -2
	powA3    = 0x1.999999959554ep-3 * 4
	powA4    = -0x1.555555529a47ap-3 * 4
	powA5    = 0x1.2495b9b4845e9p-3 * -8
	powA6    = -0x1.0002b8b263fc3p-3 * -8
	powOff   = 0x3fe6955500000000
)

// powLog is log(x) = hi + lo (lo about 15 bits beyond hi) for the bits ix
// of a positive x, normalized so that a subnormal's exponent is negative.
func powLog(ix uint64) (hi, lo float64) {
	// x = 2^k z with z in [powOff, 2*powOff), the subinterval i of z has
	// c near its centre: log(x) = k ln2 + log(c) + log1p(z/c - 1).
	tmp := ix - powOff
	i := tmp >> (52 - 7) % 128
	k := int64(tmp) >> 52
	iz := ix - tmp&(0xfff<<52)
	z := math.Float64frombits(iz)
	kd := float64(k)
	t := &powLogTab[i]
	invc, logc, logctail := t[0], t[1], t[2]

	// r = z/c - 1 is exact: 1/c has few bits and |r| < 1/128.
	var r, rhi, rlo float64
	if powFMA {
		r = math.FMA(z, invc, -1)
	} else {
		// z split so that rhi, rlo and rhi*rhi are exact.
		zhi := math.Float64frombits((iz + 1<<31) & ^uint64(1<<32-1))
		zlo := z - zhi
		rhi = float64(zhi*invc) - 1
		rlo = float64(zlo * invc)
		r = rhi + rlo
	}
	t1 := mad(kd, powLn2hi, logc)
	t2 := t1 + r
	lo1 := mad(kd, powLn2lo, logctail)
	lo2 := t1 - t2 + r
	ar := float64(powA0 * r)
	ar2 := float64(r * ar)
	ar3 := float64(r * ar2)
	var h, lo3, lo4 float64
	if powFMA {
		h = t2 + ar2
		lo3 = math.FMA(ar, r, -ar2)
		lo4 = t2 - h + ar2
	} else {
		arhi := float64(powA0 * rhi)
		arhi2 := float64(rhi * arhi)
		h = t2 + arhi2
		lo3 = float64(rlo * (ar + arhi))
		lo4 = t2 - h + arhi2
	}
	q := mad(ar2, mad(ar2, mad(r, powA6, powA5), mad(r, powA4, powA3)), mad(r, powA2, powA1))
	l := mad(ar3, q, lo1+lo2+lo3+lo4)
	y := h + l
	return y, h - y + l
}

// exp's constants (N = 128).
const (
	expInvLn2N   = 0x1.71547652b82fep0 * 128
	expNegLn2hiN = -0x1.62e42fefa0000p-8
	expNegLn2loN = -0x1.cf79abc9e3b3ap-47
	expShift     = 0x1.8p52
	expC2        = 0x1.ffffffffffdbdp-2
	expC3        = 0x1.555555555543cp-3
	expC4        = 0x1.55555cf172b91p-5
	expC5        = 0x1.1111167a4d017p-7
)

// powExp is ±exp(x + xtail) (|xtail| < 2^-15 and <= |x|), negative when
// signBias is 0x800<<7.
func powExp(x, xtail float64, signBias uint64) float64 {
	abstop := math.Float64bits(x) >> 52 & 0x7ff
	if abstop-0x3c9 >= 0x408-0x3c9 { // top12(0x1p-54), top12(512)
		if abstop < 0x3c9 {
			// Tiny x: 1 (+ x, for the rounding mode).
			one := 1 + x
			if signBias != 0 {
				return -one
			}
			return one
		}
		if abstop >= 0x409 { // top12(1024)
			var r float64
			if math.Float64bits(x)>>63 != 0 {
				r = 0
			} else {
				r = math.Inf(1)
			}
			if signBias != 0 {
				return -r
			}
			return r
		}
		abstop = 0 // large |x|: the result may overflow or underflow
	}
	// exp(x) = 2^(k/N) * exp(r), x = k ln2/N + r, |r| <= ln2/2N.
	kd := mad(expInvLn2N, x, expShift)
	ki := math.Float64bits(kd)
	kd -= expShift
	r := mad(kd, expNegLn2loN, mad(kd, expNegLn2hiN, x))
	r += xtail
	idx := 2 * (ki % 128)
	top := (ki + signBias) << (52 - 7)
	tail := math.Float64frombits(expTab2[idx])
	sbits := expTab2[idx+1] + top
	r2 := float64(r * r)
	tmp := mad(float64(r2*r2), mad(r, expC5, expC4), mad(r2, mad(r, expC3, expC2), tail+r))
	if abstop == 0 {
		return powExpSpecial(tmp, sbits, ki)
	}
	scale := math.Float64frombits(sbits)
	return mad(scale, tmp, scale)
}

// powExpSpecial is scale*(1+tmp) where it may overflow or underflow;
// sbits is scale's bits with an exponent that may have wrapped, and the
// sign of int32(ki) says which way.
func powExpSpecial(tmp float64, sbits, ki uint64) float64 {
	if ki&0x80000000 == 0 {
		// k > 0: the exponent of scale may be up to 460 too large.
		sbits -= 1009 << 52
		scale := math.Float64frombits(sbits)
		return float64(0x1p1009 * mad(scale, tmp, scale))
	}
	// k < 0: round once in the subnormal range.
	sbits += 1022 << 52
	scale := math.Float64frombits(sbits)
	// scale*tmp is used again below in another basic block, where GCC
	// does not contract, so it is rounded on its own in both places.
	st := float64(scale * tmp)
	y := scale + st
	if math.Abs(y) < 1 {
		// Round y to the final precision before scaling it down, to
		// avoid a double rounding.
		one := 1.0
		if y < 0 {
			one = -1
		}
		lo := scale - y + st
		hi := one + y
		lo = one - hi + y + lo
		y = (hi + lo) - one
		if y == 0 {
			y = math.Float64frombits(sbits & 0x8000000000000000)
		}
	}
	return float64(0x1p-1022 * y)
}
