package lauxlib_test

import (
	"bytes"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// walk is the table's keys in next's order.
func walk(t *lua.LTable) []string {
	var out []string
	for k, _, _ := seam.Next(t, lua.LNil); k != lua.LNil; k, _, _ = seam.Next(t, k) {
		out = append(out, lua.LVAsString(k))
	}
	return out
}

func equal(a, b []string) bool {
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

// TestTableOrderLayout checks, on seeded random key sets, that a table made
// with room for its keys and filled in TableOrder's order is in the layout
// of one filled key by key from empty: next walks both alike, and so it
// does after more keys go into each (the chains and the free pointer
// match too). Keys are short so that main positions collide often.
func TestTableOrderLayout(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	rng := rand.New(rand.NewSource(26))
	var o lauxlib.TableOrder
	dups := 0
	for c := 0; c < 4000; c++ {
		n := rng.Intn(40)
		if c%50 == 0 {
			n = rng.Intn(600)
		}
		keys := make([]lua.LValue, n)
		for i := range keys {
			b := make([]byte, 1+rng.Intn(3))
			for j := range b {
				b[j] = "abcdefgh_01"[rng.Intn(11)]
			}
			switch rng.Intn(20) {
			case 0:
				b = []byte(strconv.Itoa(rng.Intn(100))) // numeric strings stay strings
			case 1:
				b = append(bytes.Repeat([]byte("long"), 5+rng.Intn(20)), b...) // hashed in steps past 32 bytes
			}
			keys[i] = lua.LString(b)
		}
		slow := seam.NewTable(L, 0, 0)
		for i, k := range keys {
			seam.RawSet(L, slow, k, lua.LNumber(i))
		}
		order, ok := o.Order(keys)
		seen := map[lua.LValue]bool{}
		distinct := true
		for _, k := range keys {
			distinct = distinct && !seen[k]
			seen[k] = true
		}
		if ok != distinct {
			t.Fatalf("case %d: Order ok=%v with distinct keys %v", c, ok, distinct)
		}
		if !ok {
			dups++
			continue
		}
		if len(order) != n {
			t.Fatalf("case %d: %d keys ordered of %d", c, len(order), n)
		}
		fast := seam.NewTable(L, 0, n)
		for _, i := range order {
			seam.RawSet(L, fast, keys[i], lua.LNumber(i))
		}
		// And made from the layout at once (seam.HashTable).
		vals := make([]lua.LValue, n)
		for i := range vals {
			vals[i] = lua.LNumber(i)
		}
		built, ok := seam.HashTable(L, &o, keys, vals)
		if !ok {
			t.Fatalf("case %d: HashTable refused distinct keys", c)
		}
		for i, k := range keys {
			if v := seam.Get(built, k); v != vals[i] {
				t.Fatalf("case %d: HashTable's %q is %v, want %v", c, k, v, vals[i])
			}
		}
		if a, b := walk(slow), walk(fast); !equal(a, b) {
			t.Fatalf("case %d: keys %v\nkey by key walks %v\nat once walks    %v", c, keys, a, b)
		}
		if a, b := walk(slow), walk(built); !equal(a, b) {
			t.Fatalf("case %d: keys %v\nkey by key walks %v\nHashTable walks  %v", c, keys, a, b)
		}
		for i := 0; i < 20; i++ {
			k := lua.LString("x" + strconv.Itoa(rng.Intn(30)))
			seam.RawSet(L, slow, k, lua.LTrue)
			seam.RawSet(L, fast, k, lua.LTrue)
			seam.RawSet(L, built, k, lua.LTrue)
		}
		if a, b := walk(slow), walk(fast); !equal(a, b) {
			t.Fatalf("case %d: after more keys: key by key walks %v\nat once walks %v", c, a, b)
		}
		if a, b := walk(slow), walk(built); !equal(a, b) {
			t.Fatalf("case %d: after more keys: key by key walks %v\nHashTable walks %v", c, a, b)
		}
	}
	if dups == 0 {
		t.Fatal("no case had equal keys")
	}
}

func TestTableOrderNotStrings(t *testing.T) {
	var o lauxlib.TableOrder
	if _, ok := o.Order([]lua.LValue{lua.LString("a"), lua.LNumber(1)}); ok {
		t.Fatal("a number key was ordered")
	}
	if order, ok := o.Order(nil); !ok || len(order) != 0 {
		t.Fatalf("no keys: %v %v", order, ok)
	}
}

// TestInternCopies checks that an interned string is the same value for
// the same bytes, and never shares the memory of the string it was given
// (a substring would keep a whole decoded document alive in the cache).
func TestInternCopies(t *testing.T) {
	var in lauxlib.Interner
	doc := "xxabcxx"
	a := lauxlib.InternString(&in, doc[2:5])
	if s := string(a.(lua.LString)); s != "abc" || unsafe.StringData(s) == unsafe.StringData(doc[2:5]) {
		t.Fatalf("InternString gave %q sharing the source: %v", s, unsafe.StringData(s) == unsafe.StringData(doc[2:5]))
	}
	b := lauxlib.InternBytes(&in, []byte("abc"))
	if unsafe.StringData(string(a.(lua.LString))) != unsafe.StringData(string(b.(lua.LString))) {
		t.Fatal("the same bytes were not given the same string")
	}
	long := strings.Repeat("z", lauxlib.MaxInterned+1)
	if v := lauxlib.InternString(&in, long); string(v.(lua.LString)) != long {
		t.Fatal("a long string changed")
	}
	if v := lauxlib.InternBytes(&in, nil); v.(lua.LString) != "" {
		t.Fatal("the empty string changed")
	}
}
