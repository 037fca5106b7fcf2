package cmath

import (
	"math"
	"testing"
)

var sink float64

// benchArgs are typical arguments: moderate, as scripts use them.
var benchArgs = []float64{0.3, 1.7, 2.5, 5.25, 12.125, 33.5, 0.01, 100.75}

func bench(b *testing.B, f func(x, y float64) float64, scale float64) {
	b.ReportAllocs()
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += f(benchArgs[i&7]*scale, 1.37)
	}
	sink = s
}

func benchPair(b *testing.B, name string, scale float64) {
	b.Run("cmath", func(b *testing.B) { bench(b, funcs[name].c, scale) })
	b.Run("go", func(b *testing.B) { bench(b, funcs[name].gomath, scale) })
}

func BenchmarkExp(b *testing.B)   { benchPair(b, "exp", 1) }
func BenchmarkLog(b *testing.B)   { benchPair(b, "log", 1) }
func BenchmarkPow(b *testing.B)   { benchPair(b, "pow", 1) }
func BenchmarkSin(b *testing.B)   { benchPair(b, "sin", 1) }
func BenchmarkCos(b *testing.B)   { benchPair(b, "cos", 1) }
func BenchmarkTan(b *testing.B)   { benchPair(b, "tan", 1) }
func BenchmarkAtan(b *testing.B)  { benchPair(b, "atan", 1) }
func BenchmarkAsin(b *testing.B)  { benchPair(b, "asin", 1.0/128) }
func BenchmarkAcos(b *testing.B)  { benchPair(b, "acos", 1.0/128) }
func BenchmarkAtan2(b *testing.B) { benchPair(b, "atan2", 1) }
func BenchmarkLog10(b *testing.B) { benchPair(b, "log10", 1) }
func BenchmarkSinh(b *testing.B)  { benchPair(b, "sinh", 1) }
func BenchmarkCosh(b *testing.B)  { benchPair(b, "cosh", 1) }
func BenchmarkTanh(b *testing.B)  { benchPair(b, "tanh", 1) }

// BenchmarkSinHuge is the math/big argument reduction (|x| >= 2^28).
func BenchmarkSinHuge(b *testing.B) {
	b.Run("cmath", func(b *testing.B) { bench(b, funcs["sin"].c, 1e300) })
	b.Run("go", func(b *testing.B) { bench(b, funcs["sin"].gomath, 1e300) })
}

// BenchmarkPowInt is x^n for a small integer n (glibc's general path).
func BenchmarkPowInt(b *testing.B) {
	b.ReportAllocs()
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += Pow(float64(i&15), 3)
	}
	sink = s + math.Pi
}
