package lauxlib

import (
	"math"
	"testing"
)

// TestAppendNumber checks that AppendNumber spells every kind of number as
// FormatNumber does (integers, the 1e14 edge, fractions, exponents,
// non-finite values, negative zero).
func TestAppendNumber(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 99, 100, 12345, 1e14 - 1, 1e14, -1e14, 1e15, 0.1, 1.0 / 3, -2.5e-7, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(math.NaN(), -1), math.Copysign(0, -1), 123456789012345.6} {
		if got, want := string(AppendNumber([]byte("x"), f)), "x"+FormatNumber(f); got != want {
			t.Errorf("AppendNumber(%v) = %q, want %q", f, got, want)
		}
	}
}
