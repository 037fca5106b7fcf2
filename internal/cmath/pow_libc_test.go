package cmath

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// powLibcC is pow over stdin's (x, y) pairs, 16 bytes each, writing the
// 8 bytes of each result: the C library's pow on this machine.
const powLibcC = `#include <math.h>
#include <stdio.h>
int main(void) {
	double in[2 * 4096], out[4096];
	size_t n;
	while ((n = fread(in, 16, 4096, stdin)) > 0) {
		for (size_t i = 0; i < n; i++)
			out[i] = pow(in[2 * i], in[2 * i + 1]);
		fwrite(out, 8, n, stdout);
	}
	return 0;
}
`

// powCases returns n seeded (x, y) pairs of the kinds where pow's bits are
// hard to get right: exact and half-way integer powers, results near
// overflow and in the subnormal range, x near 1 with huge y, negative
// bases, random bits and the special values.
func powCases(seed int64, n int) [][2]float64 {
	rng := rand.New(rand.NewSource(seed))
	specials := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, -2, 3, -3,
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64,
		0x1p-1022, 0x1p-1074, -0x1p-1074, 0x1.fffffffffffffp-1, 0x1.0000000000001p0,
		0x1p-65, 0x1p-66, 0x1p63, 0x1p64, 1e300, 1e-300, 0.1, 1.5, -1.5, 1075, -1075}
	out := make([][2]float64, 0, n+len(specials)*len(specials))
	for _, x := range specials {
		for _, y := range specials {
			out = append(out, [2]float64{x, y})
		}
	}
	sign := func(v float64) float64 {
		if rng.Intn(2) == 0 {
			return -v
		}
		return v
	}
	for len(out) < n+len(specials)*len(specials) {
		var x, y float64
		switch rng.Intn(14) {
		case 0: // the squares of odd integers in (9.49e7, 1.34e8) are ties
			x = float64(94906267 + 2*rng.Int63n(19500000))
			y = 2
		case 1: // integers of 26.5 to 53 bits to small integer powers
			b := 26 + rng.Intn(28)
			x = float64(rng.Int63n(1<<b) | 1<<(b-1))
			y = float64(2 + rng.Intn(63))
		case 2: // small integers and halves to integer powers
			x = float64(1+rng.Intn(1<<12)) / float64(int64(1)<<rng.Intn(8))
			y = float64(2 + rng.Intn(63))
		case 3: // negative bases to integer powers
			x = -float64(rng.Int63n(1<<uint(1+rng.Intn(53)))+1) * math.Ldexp(1, rng.Intn(40)-20)
			y = float64(rng.Intn(130) - 65)
		case 4: // random bits
			x = math.Float64frombits(rng.Uint64())
			y = math.Float64frombits(rng.Uint64())
		case 5: // moderate arguments
			x = sign(rng.Float64() * 100)
			y = (rng.Float64() - 0.5) * 100
			if x < 0 {
				y = math.Round(y)
			}
		case 6, 7: // results near overflow, underflow and in the subnormal range
			x = math.Exp((rng.Float64() - 0.5) * 200)
			target := []float64{1024, -1022, -1074, -1075, -1000, 1000}[rng.Intn(6)] + (rng.Float64()-0.5)*8
			y = target / math.Log2(x)
			if rng.Intn(3) == 0 {
				y = math.Round(y)
				x = sign(x)
			}
		case 8: // x near 1, huge y
			x = 1 + float64(rng.Intn(2001)-1000)*0x1p-52
			y = sign(math.Ldexp(rng.Float64()+0.5, 30+rng.Intn(35)))
		case 9: // huge and tiny y
			x = rng.Float64() * 4
			y = sign(math.Ldexp(rng.Float64()+0.5, rng.Intn(140)-70))
		case 10: // subnormal x
			x = math.Float64frombits(rng.Uint64() & (1<<52 - 1))
			y = (rng.Float64() - 0.3) * 2
		case 11: // powers of two and fractions of integers
			x = math.Ldexp(1, rng.Intn(2200)-1100)
			y = float64(rng.Intn(2000)-1000) / float64(1+rng.Intn(8))
		case 12: // roots
			x = rng.Float64() * 1e6
			y = 1 / float64(1+rng.Intn(16))
		case 13: // random doubles of any magnitude, small y
			x = math.Ldexp(rng.Float64()+0.5, rng.Intn(2098)-1074)
			y = sign(rng.Float64() * 4)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

// libcPow runs the C library's pow on pairs, or skips when gcc is missing.
// env is added to the C program's environment.
func libcPow(t *testing.T, pairs [][2]float64, env ...string) []float64 {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "pow.c")
	bin := filepath.Join(dir, "pow")
	if err := os.WriteFile(src, []byte(powLibcC), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("gcc", "-O2", "-o", bin, src, "-lm").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w := bufio.NewWriter(in)
		var b [16]byte
		for _, p := range pairs {
			binary.LittleEndian.PutUint64(b[:8], math.Float64bits(p[0]))
			binary.LittleEndian.PutUint64(b[8:], math.Float64bits(p[1]))
			w.Write(b[:])
		}
		w.Flush()
		in.Close()
	}()
	res := make([]float64, len(pairs))
	r := bufio.NewReader(outp)
	var b [8]byte
	for i := range res {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			t.Fatal(err)
		}
		res[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPowAgainstLibc compares Pow's bits with this machine's C library
// (glibc 2.36 on Debian 12, as redis-server links it) over a million
// seeded pairs, in both of glibc's x86-64 variants: __pow_fma where the
// CPU has FMA and AVX2, and __pow_sse2, which GLIBC_TUNABLES selects. It
// needs gcc (go test -run TestPowAgainstLibc ./internal/cmath).
func TestPowAgainstLibc(t *testing.T) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 14
	}
	pairs := powCases(1, n)
	variants := []struct {
		name string
		fma  bool
		env  []string
	}{
		{"fma", true, nil},
		{"sse2", false, []string{"GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA"}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			if runtime.GOARCH != "amd64" || v.fma && !powFMA {
				t.Skip("glibc does not run this variant here")
			}
			want := libcPow(t, pairs, v.env...)
			defer func(old bool) { powFMA = old }(powFMA)
			powFMA = v.fma
			bad := 0
			for i, p := range pairs {
				got, w := Pow(p[0], p[1]), want[i]
				if math.Float64bits(got) != math.Float64bits(w) && !(got != got && w != w) {
					if bad++; bad <= 20 {
						t.Errorf("Pow(%x, %x) = %x, libc %x", p[0], p[1], got, w)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d differ", bad, len(pairs))
			}
		})
	}
}
