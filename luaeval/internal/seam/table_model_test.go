package seam

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

type noLimits struct{ context.Context }

func (noLimits) Alloc(int) bool                       { return true }
func (noLimits) Stopped() error                       { return nil }
func (noLimits) CCalls(L *lua.LState) *lauxlib.CCount { return new(lauxlib.CCount) }

var _ lauxlib.Budget = noLimits{}

// TestTableModel applies seeded random writes to tables and checks them
// against a Go map after each one: every value where Get finds it, next
// visiting each key once, `#` a border, and ltable.c's invariants (each
// hash key reachable from its main position along the chains, k2i
// empty).
func TestTableModel(t *testing.T) {
	seed := int64(1)
	if v := os.Getenv("LUAEVAL_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	t.Logf("seed %d (LUAEVAL_SEED reproduces)", seed)
	r := rand.New(rand.NewSource(seed))
	L := lua.NewState()
	defer L.Close()
	L.SetContext(noLimits{context.Background()})
	pool := []lua.LValue{lua.LTrue, lua.LFalse, lua.LNumber(0), lua.LNumber(-1), lua.LNumber(0.5), lua.LNumber(1 << 53), lua.LNumber(1 << 26), lua.LNumber(1<<26 + 1)}
	for i := 1; i <= 80; i++ {
		pool = append(pool, lua.LNumber(i), lua.LString("k"+strconv.Itoa(i)))
	}
	pool = append(pool, L.NewTable(), L.NewTable())
	for round := range 300 {
		tab := NewTable(L, r.Intn(10), r.Intn(10))
		model := map[lua.LValue]lua.LValue{}
		for op := range r.Intn(400) {
			k := pool[r.Intn(len(pool))]
			var v lua.LValue = lua.LNumber(op)
			if r.Intn(3) == 0 {
				v = lua.LNil
			}
			switch r.Intn(4) {
			case 0:
				if n, ok := k.(lua.LNumber); ok && float64(n) == float64(int(n)) {
					RawSetInt(L, tab, int(n), v)
				} else {
					RawSet(L, tab, k, v)
				}
			default:
				RawSet(L, tab, k, v)
			}
			if v == lua.LNil {
				delete(model, k)
			} else {
				model[k] = v
			}
			if msg := checkTable(tab, model); msg != "" {
				t.Fatalf("round %d op %d (t[%v] = %v): %s", round, op, k, v, msg)
			}
		}
	}
}

func checkTable(tab *lua.LTable, model map[lua.LValue]lua.LValue) string {
	for k, v := range model {
		if got := Get(tab, k); got != v {
			return "Get(" + k.String() + ") = " + got.String() + ", want " + v.String()
		}
	}
	seen := map[lua.LValue]bool{}
	k, v, ok := Next(tab, lua.LNil)
	for ; ok && k != lua.LNil; k, v, ok = Next(tab, k) {
		if seen[k] || model[k] != v {
			return "next gave " + k.String() + " twice or with a wrong value"
		}
		seen[k] = true
	}
	if !ok || len(seen) != len(model) {
		return "next visited " + strconv.Itoa(len(seen)) + " keys of " + strconv.Itoa(len(model))
	}
	n := Len(tab)
	if n < 0 || (n > 0 && GetInt(tab, n) == lua.LNil) || GetInt(tab, n+1) != lua.LNil {
		return "# = " + strconv.Itoa(n) + " is not a border"
	}
	tb := tableOf(tab)
	if !inLuaLayout(tb) {
		return "not in Lua's layout"
	}
	m := metaOf(tb)
	if m == nil {
		return ""
	}
	size := len(m.next)
	used := 0
	for i := range size {
		key := tb.keys[i]
		if key == lua.LNil {
			continue
		}
		used++
		if nodeOf(tb, key) != i {
			return "the chains do not lead to the node of " + key.String()
		}
		j := mainPosition(key, size)
		for steps := 0; j != i; steps++ {
			if j < 0 || steps > size {
				return key.String() + " is not on its main position's chain"
			}
			j = int(m.next[j])
		}
	}
	if used != m.used {
		return "used counts " + strconv.Itoa(m.used) + " nodes of " + strconv.Itoa(used)
	}
	if len(tb.k2i) != 0 {
		return "k2i holds keys"
	}
	return ""
}

// TestTableWrittenByGopherLua: a table in Lua's layout that gopher-lua's
// own setters then write (library code calling RawSetString) keeps its
// hash part with their keys appended after it; Next still visits every
// key once with its value, and the next write here puts it back in Lua's
// layout. Seeded random keys, including rewrites of keys that have nodes.
func TestTableWrittenByGopherLua(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	L := lua.NewState()
	defer L.Close()
	L.SetContext(noLimits{context.Background()})
	for round := range 200 {
		// From no hash part, from a constructor's small one made at once
		// (newCombined) and from a decoder's object (HashTable): every
		// table in Lua's layout keeps the k2i gopher-lua's setters write.
		tab := NewTable(L, 0, 0)
		model := map[lua.LValue]lua.LValue{}
		switch round % 3 {
		case 1:
			tab = NewTable(L, 0, 1+r.Intn(8))
		case 2:
			var keys, vals []lua.LValue
			for i := range 1 + r.Intn(8) {
				keys = append(keys, lua.LString("h"+strconv.Itoa(i)))
				vals = append(vals, lua.LNumber(i))
				model[keys[i]] = vals[i]
			}
			var o lauxlib.TableOrder
			tab, _ = HashTable(L, &o, keys, vals)
		}
		writes := r.Intn(40)
		if round%3 != 0 && round%2 == 0 {
			writes = 0 // gopher-lua's setters first, before any rehash here
		}
		for i := range writes {
			k := lua.LValue(lua.LString("k" + strconv.Itoa(r.Intn(30))))
			if r.Intn(3) == 0 {
				k = lua.LNumber(r.Intn(30) + 1)
			}
			RawSet(L, tab, k, lua.LNumber(i))
			model[k] = lua.LNumber(i)
		}
		for i := range 1 + r.Intn(10) {
			v := lua.LNumber(1000 + i)
			if r.Intn(2) == 0 {
				k := "k" + strconv.Itoa(r.Intn(40))
				tab.RawSetString(k, v)
				model[lua.LString(k)] = v
			} else {
				k := lua.LNumber(100 + r.Intn(5))
				tab.RawSetH(k, v)
				model[k] = v
			}
		}
		if msg := checkVisits(tab, model); msg != "" {
			t.Fatalf("round %d, after gopher-lua's writes: %s", round, msg)
		}
		RawSet(L, tab, lua.LString("last"), lua.LTrue)
		model[lua.LString("last")] = lua.LTrue
		if msg := checkTable(tab, model); msg != "" {
			t.Fatalf("round %d, after a write here: %s", round, msg)
		}
	}
}

// checkVisits is checkTable's reads and iteration, for a table in either
// layout.
func checkVisits(tab *lua.LTable, model map[lua.LValue]lua.LValue) string {
	for k, v := range model {
		if got := Get(tab, k); got != v {
			return "Get(" + k.String() + ") = " + got.String() + ", want " + v.String()
		}
	}
	seen := map[lua.LValue]bool{}
	k, v, ok := Next(tab, lua.LNil)
	for ; ok && k != lua.LNil; k, v, ok = Next(tab, k) {
		if seen[k] || model[k] != v {
			return "next gave " + k.String() + " twice or with a wrong value"
		}
		seen[k] = true
	}
	if !ok || len(seen) != len(model) {
		return "next visited " + strconv.Itoa(len(seen)) + " keys of " + strconv.Itoa(len(model))
	}
	return ""
}

// TestTableLayoutFastAgainstSlow applies the same seeded random writes
// (deletions included, so that nodes hold dead keys) with the fast table
// paths on and off: the node counts that let a rehash or a collision skip
// looking values up (tabMeta.used) must leave every table in the layout
// the lookups leave, so next visits the keys in the same order after
// every write.
func TestTableLayoutFastAgainstSlow(t *testing.T) {
	seed := int64(1)
	if v := os.Getenv("LUAEVAL_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	t.Logf("seed %d (LUAEVAL_SEED reproduces)", seed)
	defer SetFastTables(true)
	r := rand.New(rand.NewSource(seed))
	L := lua.NewState()
	defer L.Close()
	L.SetContext(noLimits{context.Background()})
	var pool []lua.LValue
	for i := 1; i <= 60; i++ {
		pool = append(pool, lua.LNumber(i), lua.LString("k"+strconv.Itoa(i)), lua.LNumber(float64(i)+0.5))
	}
	order := func(tab *lua.LTable) string {
		var b []byte
		k := lua.LValue(lua.LNil)
		for {
			nk, v, ok := Next(tab, k)
			if !ok {
				return "invalid key"
			}
			if nk == lua.LNil {
				return string(b)
			}
			b = append(b, nk.String()+"="+v.String()+" "...)
			k = nk
		}
	}
	for round := range 300 {
		ops := make([][2]lua.LValue, r.Intn(300))
		for i := range ops {
			var v lua.LValue = lua.LNumber(i)
			if r.Intn(3) == 0 {
				v = lua.LNil
			}
			ops[i] = [2]lua.LValue{pool[r.Intn(len(pool))], v}
		}
		narr, nrec := r.Intn(6), r.Intn(6)
		fast, slow := NewTable(L, narr, nrec), NewTable(L, narr, nrec)
		for i, op := range ops {
			SetFastTables(true)
			RawSet(L, fast, op[0], op[1])
			SetFastTables(false)
			RawSet(L, slow, op[0], op[1])
			if f, s := order(fast), order(slow); f != s {
				t.Fatalf("round %d, write %d (%v = %v):\nfast %s\nslow %s", round, i, op[0], op[1], f, s)
			}
		}
	}
}
