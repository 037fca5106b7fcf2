package seam

import (
	"math"
	"runtime"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestNumber checks that the boxed small integers are the numbers they
// stand for, and that the values around the cache's edges, fractions,
// negative zero, infinities and NaN come through as lua.LNumber would.
func TestNumber(t *testing.T) {
	for _, x := range []float64{0, 1, -1, 127, 128, smallMin, smallMin - 1, smallMax - 1, smallMax, 0.5, -0.5, 1e300,
		math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 4096.25, 2.9999999999999996} {
		v := Number(x)
		n, ok := v.(lua.LNumber)
		if !ok {
			t.Fatalf("Number(%v) is a %T", x, v)
		}
		if math.Float64bits(float64(n)) != math.Float64bits(x) {
			t.Errorf("Number(%v) = %v (bits %x, want %x)", x, n, math.Float64bits(float64(n)), math.Float64bits(x))
		}
		if v != lua.LValue(lua.LNumber(x)) {
			t.Errorf("Number(%v) != LNumber(%v) as LValues", x, x)
		}
	}
	if n, ok := Number(math.NaN()).(lua.LNumber); !ok || !math.IsNaN(float64(n)) {
		t.Errorf("Number(NaN) = %v", n)
	}
	if a := testing.AllocsPerRun(100, func() { _ = Number(4000) }); a != 0 {
		t.Errorf("Number(4000) allocates %v times", a)
	}
}

// TestNumberIn checks NumberIn's boxes in a state's allocator: each is its
// own number, across the allocator's blocks.
func TestNumberIn(t *testing.T) {
	if !Enabled() {
		t.Skip(Why())
	}
	L := lua.NewState()
	defer L.Close()
	var vs []lua.LValue
	for i := 0; i < 100; i++ {
		vs = append(vs, NumberIn(L, float64(i)+0.25), NumberIn(L, float64(i*1000)))
	}
	for i := 0; i < 100; i++ {
		if vs[2*i] != lua.LValue(lua.LNumber(float64(i)+0.25)) || vs[2*i+1] != lua.LValue(lua.LNumber(float64(i*1000))) {
			t.Fatalf("box %d: %v %v", i, vs[2*i], vs[2*i+1])
		}
	}
}

// TestNewString checks strings made in one block: their text, equality
// with ordinary strings, and that they survive collections while only a
// string copied out of them (an interior pointer) holds them.
func TestNewString(t *testing.T) {
	var keep []string
	for i := 0; i < 2000; i++ {
		want := strings.Repeat(string(rune('a'+i%26)), i%70+1)
		v, b := newString(len(want))
		copy(b, want)
		if v != lua.LValue(lua.LString(want)) {
			t.Fatalf("newString %q = %q", want, v)
		}
		keep = append(keep, string(v.(lua.LString)))
		if i%100 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i, s := range keep {
		if want := strings.Repeat(string(rune('a'+i%26)), i%70+1); s != want {
			t.Fatalf("string %d is %q after collections, want %q", i, s, want)
		}
	}
	if v, b := newString(0); v != lua.LValue(lua.LString("")) || len(b) != 0 {
		t.Fatalf("newString(0) = %q, %d bytes", v, len(b))
	}
}
