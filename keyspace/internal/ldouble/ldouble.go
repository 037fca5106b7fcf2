// Package ldouble is the x87 long double arithmetic that Redis's
// INCRBYFLOAT and HINCRBYFLOAT do (util.c:string2ld, ld2string): parse with
// strtold, add in 64-bit-mantissa precision, print "%.17Lf" without
// trailing zeros. float64 would give other digits ("10.5" + "0.1" is 10.6
// in long double, 10.59999999999999964 in double printed that way), so the
// arithmetic runs in math/big at the long double's precision and range.
package ldouble

import (
	"math/big"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
)

const (
	prec = 64 // x87 extended precision's mantissa bits
	// maxExp and minExp bound a finite, non-zero long double's binary
	// exponent (big.Float's MantExp convention: 0.5 <= mant < 1).
	maxExp = 16384
	minExp = -16444
	// maxChars is MAX_LONG_DOUBLE_CHARS: longer input is not a number.
	maxChars = 5 * 1024
)

// Float is a long double value. The zero Float is 0.
type Float struct{ f big.Float }

func newFloat() *big.Float { return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven) }

// Parse is string2ld: strtold over the whole string, which must not start
// with a space, be empty or too long, overflow, underflow to zero or be
// NaN. Infinity ("inf") parses: HINCRBYFLOAT refuses it afterwards.
func Parse(s []byte) (Float, bool) {
	if len(s) == 0 || len(s) >= maxChars || redisstr.IsSpace(s[0]) {
		return Float{}, false
	}
	t := strings.ToLower(string(s))
	neg := false
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	var r Float
	switch body {
	case "inf", "infinity":
		r.f.SetInf(neg)
		return r, true
	}
	hex := strings.HasPrefix(body, "0x")
	if strings.ContainsAny(body, "_n") || body == "" || strings.HasPrefix(body, "0b") || strings.HasPrefix(body, "0o") ||
		!hex && strings.IndexByte(body, 'p') >= 0 {
		// big accepts underscores, base prefixes other than strtold's 0x
		// ("0b1" would be 1, strtold stops at the b) and a binary exponent
		// after decimal digits ("7p2" would be 28); "nan" is refused.
		return Float{}, false
	}
	f, _, err := newFloat().Parse(t, 0)
	if err != nil {
		return Float{}, false
	}
	if !finite(f) {
		return Float{}, false // overflow (ERANGE with HUGE_VAL)
	}
	if f.Sign() == 0 && redisstr.Underflows(body) {
		return Float{}, false // underflow to zero (ERANGE)
	}
	r.f.Set(f)
	return r, true
}

// finite reports whether f fits a long double's exponent range; a value
// past it is infinite there.
func finite(f *big.Float) bool {
	if f.IsInf() {
		return false
	}
	if f.Sign() == 0 {
		return true
	}
	e := f.MantExp(nil)
	return e <= maxExp && e >= minExp
}

// FromInt is (long double)n.
func FromInt(n int64) Float {
	var r Float
	r.f.SetPrec(prec).SetInt64(n)
	return r
}

// IsInf reports whether x is infinite (NaN cannot arise here: an infinite
// increment is refused before any addition).
func (x Float) IsInf() bool { return x.f.IsInf() || !finite(&x.f) }

// Add is x + y, rounded to a long double.
func Add(x, y Float) Float {
	var r Float
	if x.f.IsInf() || y.f.IsInf() {
		if x.f.IsInf() && y.f.IsInf() && x.f.Signbit() != y.f.Signbit() {
			r.f.SetInf(false) // NaN in C; either way the caller refuses it
			return r
		}
		r.f.SetInf(x.f.Signbit() && x.f.IsInf() || y.f.Signbit() && y.f.IsInf())
		return r
	}
	z := newFloat().Add(&x.f, &y.f)
	if !finite(z) {
		r.f.SetInf(z.Signbit())
		return r
	}
	r.f.Set(z)
	return r
}

// Human is ld2string's LD_STR_HUMAN: "%.17Lf" with trailing zeros (and a
// trailing point) removed, and "-0" as "0".
func (x Float) Human() string {
	s := x.f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// FromFloat64 is (long double)f; f must not be NaN.
func FromFloat64(f float64) Float {
	var r Float
	r.f.SetPrec(prec).SetFloat64(f)
	return r
}
