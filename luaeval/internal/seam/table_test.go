package seam_test

import (
	"context"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// budget makes a bare state run as a minilock script (seam's hooks act
// only on those), with no limits.
type budget struct{ context.Context }

func (budget) Alloc(int) bool                       { return true }
func (budget) Stopped() error                       { return nil }
func (budget) CCalls(L *lua.LState) *lauxlib.CCount { return new(lauxlib.CCount) }

var _ lauxlib.Budget = budget{}

func run(t *testing.T, src string) lua.LValue {
	t.Helper()
	if !seam.Enabled() {
		t.Fatalf("the hooks are off (%s): gopher-lua's own tables lack what these tests check", seam.Why())
	}
	L := lua.NewState()
	defer L.Close()
	L.SetContext(budget{context.Background()})
	p, err := luac.Compile([]byte(src), "=t", luac.Options{})
	if err != nil {
		t.Fatal(err)
	}
	L.Push(L.NewFunctionFromProto(p))
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return L.Get(-1)
}

// A sparse integer key is one hash entry, as in Lua 5.1: gopher-lua's own
// table would grow its array part to 60,000,000 slots (and RawGetInt
// would find the key there).
func TestSparseKeyIsAHashEntry(t *testing.T) {
	start := time.Now()
	tb := run(t, "local t = {} t[60000000] = 1 return t").(*lua.LTable)
	if d := time.Since(start); d > time.Second {
		t.Errorf("t[60000000] = 1 took %v", d)
	}
	if tb.RawGetInt(60000000) != lua.LNil {
		t.Error("the key is in gopher-lua's array part")
	}
	if seam.GetInt(tb, 60000000) != lua.LNumber(1) || seam.Len(tb) != 0 {
		t.Errorf("t[60000000] = %v, #t = %d", seam.GetInt(tb, 60000000), seam.Len(tb))
	}
}

// `#` is luaH_getn over Lua 5.1's layout (the values are redis-server
// 7.0.15's), and ignores __len.
func TestBorders(t *testing.T) {
	for src, want := range map[string]int{
		"return #{1, nil, [3] = 3}": 1,
		"return #{1, 2, [4] = 4}":   2,
		"return #{1, 2, nil, 4}":    4,
		"local t = {} for i = 1, 10 do t[i] = i end t[8] = nil return #t":      7,
		"return #setmetatable({}, {__len = function() return 5 end})":          0,
		"local t = {} for i = 1, 1000 do t[i] = i end t[1000] = nil return #t": 999,
	} {
		if got := run(t, src); got != lua.LNumber(want) {
			t.Errorf("%s: %v, want %d", src, got, want)
		}
	}
}

// next walks the array part, then the hash nodes as ltable.c placed them
// (the order is redis-server 7.0.15's).
func TestNextOrder(t *testing.T) {
	tb := run(t, "local t = {} for i = 1, 20 do t['k' .. i] = i end t.k5 = nil t[1] = true t[2^40] = 1 t[2.5] = 1 return t").(*lua.LTable)
	var got []string
	k, _, ok := seam.Next(tb, lua.LNil)
	for ; ok && k != lua.LNil; k, _, ok = seam.Next(tb, k) {
		if n, isNum := k.(lua.LNumber); isNum && n == 1<<40 {
			got = append(got, "2^40")
			continue
		}
		got = append(got, k.String())
	}
	want := "k16 k19 2^40 k11 2.5 1 k17 k15 k20 k10 k8 k1 k12 k3 k2 k9 k13 k18 k14 k6 k7 k4"
	if !ok || strings.Join(got, " ") != want {
		t.Errorf("next order %q (ok %v)\nwant %q", strings.Join(got, " "), ok, want)
	}
}

// A constructor keeps every item, however many (SETLIST with its block
// number in the next word).
func TestLongConstructor(t *testing.T) {
	items := make([]string, 100000)
	for i := range items {
		items[i] = "1"
	}
	if got := run(t, "return #{"+strings.Join(items, ",")+"}"); got != lua.LNumber(100000) {
		t.Errorf("#{...100000 items} = %v", got)
	}
}

// Tables written by gopher-lua's own setters (Go library code) are read
// and iterated correctly, and rebuilt into Lua's layout on their first
// write through the seam.
func TestGopherLayoutTables(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tb := L.CreateTable(0, 0)
	tb.RawSetH(lua.LNumber(5), lua.LString("five")) // hash part, empty array
	tb.RawSetString("a", lua.LTrue)
	tb.RawSetInt(1, lua.LString("one"))
	walk := func() []string {
		var keys []string
		k, _, ok := seam.Next(tb, lua.LNil)
		for n := 0; ok && k != lua.LNil && n < 10; n++ {
			keys = append(keys, k.String())
			k, _, ok = seam.Next(tb, k)
		}
		return keys
	}
	if got := strings.Join(walk(), " "); got != "1 5 a" {
		t.Errorf("gopher-lua layout: next order %q", got)
	}
	if _, _, ok := seam.Next(tb, lua.LString("zz")); ok {
		t.Error("next accepted a key the table does not have")
	}
	seam.RawSet(L, tb, lua.LString("b"), lua.LFalse)
	if got := len(walk()); got != 4 || seam.GetInt(tb, 5) != lua.LString("five") || seam.Len(tb) != 1 {
		t.Errorf("after a write: %d keys, t[5] = %v, #t = %d", got, seam.GetInt(tb, 5), seam.Len(tb))
	}
}
