package seam

import (
	"context"
	"math/rand"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestPairsIsNext checks on seeded random tables, in Lua's layout and in
// gopher-lua's (written by its own setters), that Pairs walks the keys and
// values Next walks, in the same order, and stops where its loop breaks.
func TestPairsIsNext(t *testing.T) {
	r := rand.New(rand.NewSource(26))
	L := lua.NewState()
	defer L.Close()
	L.SetContext(noLimits{context.Background()})
	keys := []lua.LValue{lua.LTrue, lua.LNumber(0.5), lua.LNumber(-3)}
	for i := 1; i <= 40; i++ {
		keys = append(keys, lua.LNumber(i), lua.LString("k"+strconv.Itoa(i)))
	}
	for round := range 500 {
		var tab *lua.LTable
		foreign := round%4 == 0
		if foreign {
			tab = L.NewTable()
		} else {
			tab = NewTable(L, r.Intn(6), r.Intn(6))
		}
		for op := range r.Intn(120) {
			k := keys[r.Intn(len(keys))]
			var v lua.LValue = lua.LNumber(op)
			if r.Intn(4) == 0 {
				v = lua.LNil
			}
			if foreign {
				tab.RawSet(k, v)
			} else {
				RawSet(L, tab, k, v)
			}
		}
		var want, got []lua.LValue
		for k, v, _ := Next(tab, lua.LNil); k != lua.LNil; k, v, _ = Next(tab, k) {
			want = append(want, k, v)
		}
		stop := r.Intn(len(want)/2 + 1)
		for k, v := range Pairs(tab) {
			got = append(got, k, v)
			if len(got) == 2*stop && stop > 0 {
				break
			}
		}
		if stop > 0 {
			want = want[:2*stop]
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: Pairs walked %d keys and values, Next %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d: Pairs gave %v at %d, Next %v", round, got[i], i, want[i])
			}
		}
	}
}

// TestArrayTable checks that ArrayTable makes, for every count up to 40,
// the table lua_rawseti of 1 .. n into an empty table makes: the same
// array part, `#`, next's walk, and the same after more keys go in.
func TestArrayTable(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	L.SetContext(noLimits{context.Background()})
	walk := func(tab *lua.LTable) (out []lua.LValue) {
		for k, v, _ := Next(tab, lua.LNil); k != lua.LNil; k, v, _ = Next(tab, k) {
			out = append(out, k, v)
		}
		return out
	}
	same := func(a, b []lua.LValue) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 40; n++ {
		vals := make([]lua.LValue, n)
		for i := range vals {
			vals[i] = lua.LString("v" + strconv.Itoa(i))
		}
		slow := NewTable(L, 0, 0)
		for i, v := range vals {
			RawSetInt(L, slow, i+1, v)
		}
		fast := ArrayTable(L, vals)
		if len(tableOf(slow).array) != len(tableOf(fast).array) || Len(slow) != Len(fast) || !same(walk(slow), walk(fast)) {
			t.Fatalf("n=%d: key by key %d slots, # %d; ArrayTable %d slots, # %d", n, len(tableOf(slow).array), Len(slow), len(tableOf(fast).array), Len(fast))
		}
		for i := 0; i < 30; i++ {
			k := lua.LValue(lua.LNumber(n + 1 + i))
			if i%3 == 0 {
				k = lua.LString("x" + strconv.Itoa(i))
			}
			RawSet(L, slow, k, lua.LTrue)
			RawSet(L, fast, k, lua.LTrue)
		}
		if !same(walk(slow), walk(fast)) || Len(slow) != Len(fast) {
			t.Fatalf("n=%d: after more keys the walks differ", n)
		}
	}
}
