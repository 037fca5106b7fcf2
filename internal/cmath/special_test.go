package cmath

import (
	"math"
	"testing"
)

var nasty = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, -2, 3, -3, 1e-310, -1e-310, 5e-324, -5e-324,
	0x1p-1022, 0x1p-1074, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
	math.Float64frombits(0xFFF8000000000000), 709.782712893384, 709.7827128933841, -745.1332191019411,
	-745.1332191019412, 710.4758600739439, 1 + 0x1p-52, 1 - 0x1p-53, 1e22, 1e300, 0x1p1023, 0x1p52 + 1,
	0x1p53, 1.5707963267948966, 3.141592653589793, 6381956970095103 * 0x1p797, 1075, -1075, 1e-20,
}

// checkDomain: a NaN from cmath exactly where Go's math (which follows the
// same C99 Annex F domains) gives one.
func checkDomain(t *testing.T, x, y float64) {
	t.Helper()
	for name, f := range funcs {
		got, want := f.c(x, y), f.gomath(x, y)
		if (got != got) != (want != want) {
			t.Errorf("%s(%v, %v) = %v, Go's math %v", name, x, y, got, want)
		}
	}
}

// TestSpecialInputs runs every function on every pair of awkward numbers:
// no panic, and NaN exactly in the domain errors.
func TestSpecialInputs(t *testing.T) {
	for _, x := range nasty {
		for _, y := range nasty {
			checkDomain(t, x, y)
			checkDomain(t, -x, y)
		}
	}
}

func FuzzFunctions(f *testing.F) {
	for _, x := range nasty[:12] {
		f.Add(x, 2.5)
	}
	f.Fuzz(func(t *testing.T, x, y float64) { checkDomain(t, x, y) })
}
