package geohash

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigSin is sin(x) by its Taylor series in 200-bit arithmetic, for the
// reference.
func bigSin(x float64, cos bool) float64 {
	const prec = 200
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	x2 := new(big.Float).SetPrec(prec).Mul(bx, bx)
	term := new(big.Float).SetPrec(prec).Set(bx)
	n := 1
	if cos {
		term.SetFloat64(1)
		n = 0
	}
	sum := new(big.Float).SetPrec(prec).Set(term)
	for k := 0; k < 200; k++ {
		term.Mul(term, x2)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64((n+1)*(n+2))))
		term.Neg(term)
		n += 2
		sum.Add(sum, term)
	}
	f, _ := sum.Float64()
	return f
}

// TestCorrectlyRounded compares crSin and crCos with a 200-bit
// reference over the arguments the distance formula uses.
func TestCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bad := 0
	for i := 0; i < 3000; i++ {
		x := (r.Float64()*2 - 1) * math.Pi
		if got, want := crSin(x), bigSin(x, false); got != want {
			bad++
			t.Errorf("sin(%v) = %v, want %v", x, got, want)
		}
		if got, want := crCos(x), bigSin(x, true); got != want {
			bad++
			t.Errorf("cos(%v) = %v, want %v", x, got, want)
		}
		y := r.Float64()
		if i%10 == 0 {
			y = 1 - r.Float64()*1e-12
		}
		a := crAsin(y)
		// asin is right when sin of the neighbours brackets y.
		lo, hi := math.Nextafter(a, 0), math.Nextafter(a, 2)
		if !(sinX(lo).round() <= y && y <= sinX(hi).round()) {
			t.Errorf("asin(%v) = %v out of its bracket", y, a)
		}
		if bad > 10 {
			t.FailNow()
		}
	}
}
