package luaeval

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestPowAgainstRedis: `^` and math.pow must give redis-server's bits for
// every argument, glibc's pow not being correctly rounded: exact half-way
// cases (123456789^2 is 15241578750190522, not the even ...520), integer
// powers, negative bases, results near overflow and in the subnormal
// range, x near 1 with huge y, NaNs. Half of the `^` are literals, which
// the compiler folds (lcode.c); each result is printed with %.17g and also
// returned as Lua's %.14g and as an integer reply.
func TestPowAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	num := func(f float64) string {
		switch {
		case math.IsInf(f, 1):
			return "(1/0)"
		case math.IsInf(f, -1):
			return "(-1/0)"
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if strings.HasPrefix(s, "-") {
			return "(" + s + ")"
		}
		return s
	}
	sign := func(f float64) float64 {
		if r.Intn(2) == 0 {
			return -f
		}
		return f
	}
	gens := []func() (float64, float64){
		func() (float64, float64) { return float64(94906267 + 2*r.Int63n(19500000)), 2 }, // ties
		func() (float64, float64) {
			b := 27 + r.Intn(27)
			return float64(r.Int63n(1<<(b-1)) | 1<<(b-1)), float64(2 + r.Intn(1100/b))
		},
		func() (float64, float64) {
			return float64(1+r.Intn(4096)) / float64(int(1)<<r.Intn(8)), float64(2 + r.Intn(63))
		},
		func() (float64, float64) { return -float64(1 + r.Intn(1000)), float64(r.Intn(131) - 65) },
		func() (float64, float64) { // near overflow and underflow
			x := math.Exp((r.Float64() - 0.5) * 200)
			y := ([]float64{1024, -1022, -1074, -1075}[r.Intn(4)] + (r.Float64()-0.5)*8) / math.Log2(x)
			return x, y
		},
		func() (float64, float64) {
			return 1 + float64(r.Intn(2001)-1000)*0x1p-52, sign(math.Ldexp(r.Float64()+0.5, 30+r.Intn(30)))
		},
		func() (float64, float64) { return r.Float64() * 100, (r.Float64() - 0.5) * 40 },
		func() (float64, float64) {
			return math.Ldexp(r.Float64()+0.5, r.Intn(2098)-1074), sign(r.Float64() * 3)
		},
	}
	specials := []float64{0, 1, -1, 0.5, -2, 3, math.Inf(1), math.Inf(-1), 1e308, 5e-324, 1.5, -0.5}
	var pairs [][2]float64
	pairs = append(pairs, [2]float64{123456789, 2}, [2]float64{3, 34}, [2]float64{10, 23}, [2]float64{-3, 0.5})
	for _, x := range specials {
		for _, y := range specials {
			pairs = append(pairs, [2]float64{x, y})
		}
	}
	for len(pairs) < 600 {
		x, y := gens[len(pairs)%len(gens)]()
		pairs = append(pairs, [2]float64{x, y})
	}
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	const perScript = 50
	bad := 0
	for s := 0; s*perScript < len(pairs); s++ {
		var b strings.Builder
		b.WriteString("local r = {}\n")
		for i, p := range pairs[s*perScript : (s+1)*perScript] {
			x, y := num(p[0]), num(p[1])
			switch i % 3 {
			case 0: // folded by the compiler
				fmt.Fprintf(&b, "do local v = %s ^ %s r[#r+1] = string.format('%%.17g', v) .. '|' .. tostring(v) end\n", x, y)
			case 1:
				fmt.Fprintf(&b, "do local x, y = %s, %s local v = x ^ y r[#r+1] = string.format('%%.17g', v) .. '|' .. tostring(v) end\n", x, y)
			default:
				fmt.Fprintf(&b, "do local v = math.pow(%s, %s) r[#r+1] = string.format('%%.17g', v) .. '|' .. tostring(v) end\n", x, y)
			}
		}
		b.WriteString("return table.concat(r, ' ')")
		script := b.String()
		want := rc.do(t, "EVAL", script, "0")
		got := evalReply(e, newFakeHost(), 2, script, "0")
		w, g := replyFields(want), replyFields(got)
		if len(w) != perScript || len(g) != perScript {
			t.Fatalf("replies\nredis    %q\nminilock %q", trunc(want), trunc(got))
		}
		for i := range w {
			if w[i] != g[i] {
				if bad++; bad <= 10 {
					p := pairs[s*perScript+i]
					t.Errorf("%v ^ %v: redis %s, minilock %s", p[0], p[1], w[i], g[i])
				}
			}
		}
	}
	// The integer reply of a number is its truncation (lua_Number to long long).
	for _, p := range pairs[:40] {
		script := fmt.Sprintf("return %s ^ %s", num(p[0]), num(p[1]))
		if want, got := rc.do(t, "EVAL", script, "0"), evalReply(e, newFakeHost(), 2, script, "0"); want != got {
			bad++
			t.Errorf("%s: redis %q, minilock %q", script, want, got)
		}
	}
	t.Logf("%d expressions, %d differ from redis-server", len(pairs)+40, bad)
}
