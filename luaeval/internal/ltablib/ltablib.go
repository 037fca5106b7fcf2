// Package ltablib is Lua 5.1's table library (ltablib.c) over minilock's
// tables (luaeval/internal/seam): the same lengths (luaH_getn), the same
// order of reads and writes (so table.sort meets an inconsistent
// comparator where Lua does and says "invalid order function for
// sorting"), the same errors. Loops whose length a script chooses poll the
// script's budget; writes that grow a table are charged before they happen
// (seam).
package ltablib

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// Guard raises Lua's error when t may not be written (a protected table).
type Guard func(L *lua.LState, t *lua.LTable)

// Funcs returns the library's functions; writable guards every write.
func Funcs(writable Guard) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"concat":   concat,
		"foreach":  foreach,
		"foreachi": foreachi,
		"getn":     getn,
		"maxn":     maxn,
		"insert":   func(L *lua.LState) int { return insert(L, writable) },
		"remove":   func(L *lua.LState) int { return remove(L, writable) },
		"setn":     setn,
		"sort":     func(L *lua.LState) int { return sort(L, writable) },
	}
}

// checkTable is luaL_checktype(L, n, LUA_TTABLE).
func checkTable(L *lua.LState, n int) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		lauxlib.TypeError(L, n, "table")
	}
	return t
}

// auxGetn is ltablib.c's aux_getn.
func auxGetn(L *lua.LState, n int) (*lua.LTable, int) {
	t := checkTable(L, n)
	return t, seam.Len(t)
}

func poll(L *lua.LState, i int) {
	if i%lauxlib.PollEvery == 0 {
		lauxlib.Poll(L)
	}
}

func checkFunction(L *lua.LState, n int) {
	if L.Get(n).Type() != lua.LTFunction {
		lauxlib.TypeError(L, n, "function")
	}
}

// call calls f with a and b and returns its first result, counted as a
// call through a C boundary (seam.Call2: directly when f is a Lua
// function).
func call(L *lua.LState, f, a, b lua.LValue) lua.LValue {
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	return seam.Call2(L, f, a, b)
}

func foreachi(L *lua.LState) int {
	t, n := auxGetn(L, 1)
	checkFunction(L, 2)
	f := L.Get(2)
	for i := 1; i <= n; i++ {
		poll(L, i)
		if r := call(L, f, lua.LNumber(i), seam.GetInt(t, i)); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

func foreach(L *lua.LState) int {
	t := checkTable(L, 1)
	checkFunction(L, 2)
	f := L.Get(2)
	var k lua.LValue = lua.LNil
	for i := 1; ; i++ {
		poll(L, i)
		nk, v, ok := seam.Next(t, k)
		if !ok {
			L.Error(lua.LString("invalid key to 'next'"), 0)
		}
		if nk == lua.LNil {
			return 0
		}
		if r := call(L, f, nk, v); r != lua.LNil {
			L.Push(r)
			return 1
		}
		k = nk
	}
}

func maxn(L *lua.LState) int {
	t := checkTable(L, 1)
	m := 0.0
	var k lua.LValue = lua.LNil
	for i := 1; ; i++ {
		poll(L, i)
		nk, _, _ := seam.Next(t, k)
		if nk == lua.LNil {
			break
		}
		if n, ok := nk.(lua.LNumber); ok && float64(n) > m {
			m = float64(n)
		}
		k = nk
	}
	L.Push(lauxlib.Number(L, m))
	return 1
}

func getn(L *lua.LState) int {
	_, n := auxGetn(L, 1)
	L.Push(lauxlib.Number(L, n))
	return 1
}

// setn is Lua 5.1's with luaL_setn defined: obsolete.
func setn(L *lua.LState) int {
	checkTable(L, 1)
	lauxlib.Error(L, "'setn' is obsolete")
	return 0
}

func insert(L *lua.LState, writable Guard) int {
	t, e := auxGetn(L, 1)
	e++
	var pos int
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = lauxlib.CheckInt(L, 2)
		if pos > e {
			e = pos
		}
		writable(L, t)
		for i := e; i > pos; i-- {
			poll(L, i)
			seam.RawSetInt(L, t, i, seam.GetInt(t, i-1))
		}
	default:
		lauxlib.Error(L, "wrong number of arguments to 'insert'")
	}
	writable(L, t)
	seam.RawSetInt(L, t, pos, L.Get(L.GetTop()))
	return 0
}

func remove(L *lua.LState, writable Guard) int {
	t, e := auxGetn(L, 1)
	pos := lauxlib.OptInt(L, 2, e)
	if !(1 <= pos && pos <= e) {
		return 0
	}
	writable(L, t)
	v := seam.GetInt(t, pos)
	for ; pos < e; pos++ {
		poll(L, pos)
		seam.RawSetInt(L, t, pos, seam.GetInt(t, pos+1))
	}
	seam.RawSetInt(L, t, e, lua.LNil)
	L.Push(v)
	return 1
}

// concat is ltablib.c's tconcat. The result's length is summed first, so
// the budget is charged before the one allocation of the result.
func concat(L *lua.LState) int {
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = lauxlib.CheckString(L, 2)
	}
	t := checkTable(L, 1)
	i := lauxlib.OptInt(L, 3, 1)
	var last int
	if L.Get(4) == lua.LNil {
		last = seam.Len(t)
	} else {
		last = lauxlib.CheckInt(L, 4)
	}
	field := func(k int) string {
		v := seam.GetInt(t, k)
		switch v := v.(type) {
		case lua.LString:
			return string(v)
		case lua.LNumber:
			return lauxlib.FormatNumber(float64(v))
		}
		// Redis's wording (its ltablib.c names the type).
		lauxlib.Error(L, "invalid value ("+v.Type().String()+") at index "+itoa(k)+" in table for 'concat'")
		return ""
	}
	n := 0
	for k := i; k <= last; k++ {
		poll(L, k)
		n += len(field(k))
		if k != last {
			n += len(sep)
		}
		if n < 0 {
			lauxlib.NoMemory(L)
		}
		if k == last {
			break // last may be MaxInt32: k++ must not wrap
		}
	}
	lauxlib.Alloc(L, n)
	// The result in one allocation, its bytes written in place.
	res, buf := seam.NewString(n)
	b := buf[:0]
	for k := i; k <= last; k++ {
		b = append(b, field(k)...)
		if k == last {
			break
		}
		b = append(b, sep...)
	}
	if len(b) != n {
		// The fields' text cannot change between the two passes (no
		// metamethod runs); were it to, the string made here would be
		// half filled, so the bytes are copied instead.
		res = lua.LString(b)
	}
	L.Push(res)
	return 1
}

func itoa(i int) string {
	return lauxlib.FormatNumber(float64(i))
}

// sort is ltablib.c's sort.
func sort(L *lua.LState, writable Guard) int {
	t, n := auxGetn(L, 1)
	if L.Get(2) != lua.LNil {
		checkFunction(L, 2)
	}
	L.SetTop(2)
	if n > 1 {
		writable(L, t)
	}
	s := sorter{L: L, t: t, cmp: L.Get(2)}
	s.order, s.inline = seam.OrderOf(L, s.cmp)
	s.auxsort(1, n)
	return 0
}

type sorter struct {
	L     *lua.LState
	t     *lua.LTable
	cmp   lua.LValue
	steps int
	// order is cmp when it is a plain `return a < b` or `return a.k <
	// b.k` (seam.OrderOf): on numbers its result is computed without the
	// call.
	order  seam.Order
	inline bool
}

func (s *sorter) get(i int) lua.LValue { return seam.GetInt(s.t, i) }

func (s *sorter) set(i int, v lua.LValue) { seam.RawSetInt(s.L, s.t, i, v) }

// lt is ltablib.c's sort_comp: a < b.
func (s *sorter) lt(a, b lua.LValue) bool {
	s.steps++
	poll(s.L, s.steps)
	if s.inline {
		if less, ok := s.order.Less(a, b); ok {
			return less
		}
	}
	if s.cmp != lua.LNil {
		return lua.LVAsBool(call(s.L, s.cmp, a, b))
	}
	return lessThan(s.L, a, b)
}

// lessThan is lvm.c's luaV_lessthan. Its errors are raised from inside
// sort, a C function, so they carry no position.
func lessThan(L *lua.LState, a, b lua.LValue) bool {
	switch x := a.(type) {
	case lua.LNumber:
		if y, ok := b.(lua.LNumber); ok {
			return x < y
		}
	case lua.LString:
		if y, ok := b.(lua.LString); ok {
			return x < y
		}
	}
	if a.Type() == b.Type() {
		tm := L.GetMetaField(a, "__lt")
		if tm != lua.LNil && L.GetMetaField(b, "__lt") == tm {
			return lua.LVAsBool(call(L, tm, a, b))
		}
		L.Error(lua.LString("attempt to compare two "+a.Type().String()+" values"), 0)
	}
	L.Error(lua.LString("attempt to compare "+a.Type().String()+" with "+b.Type().String()), 0)
	return false
}

func (s *sorter) invalid() {
	lauxlib.Error(s.L, "invalid order function for sorting")
}

// auxsort is ltablib.c's auxsort, read for read and write for write; the
// recursion is on the smaller part, so its depth is at most log2(n).
func (s *sorter) auxsort(l, u int) {
	for l < u {
		al, au := s.get(l), s.get(u)
		if s.lt(au, al) {
			s.set(l, au)
			s.set(u, al)
		}
		if u-l == 1 {
			break
		}
		i := int(uint(l+u) / 2)
		ai, al := s.get(i), s.get(l)
		if s.lt(ai, al) {
			s.set(i, al)
			s.set(l, ai)
		} else {
			au := s.get(u)
			if s.lt(au, ai) {
				s.set(i, au)
				s.set(u, ai)
			}
		}
		if u-l == 2 {
			break
		}
		p := s.get(i)
		au1 := s.get(u - 1)
		s.set(i, au1)
		s.set(u-1, p)
		i, j := l, u-1
		for {
			var ai, aj lua.LValue
			for {
				i++
				ai = s.get(i)
				if !s.lt(ai, p) {
					break
				}
				if i > u {
					s.invalid()
				}
			}
			for {
				j--
				aj = s.get(j)
				if !s.lt(p, aj) {
					break
				}
				if j < l {
					s.invalid()
				}
			}
			if j < i {
				break
			}
			s.set(i, aj)
			s.set(j, ai)
		}
		au1, ai = s.get(u-1), s.get(i)
		s.set(u-1, ai)
		s.set(i, au1)
		if i-l < u-i {
			j = l
			i = i - 1
			l = i + 2
		} else {
			j = i + 1
			i = u
			u = j - 2
		}
		s.auxsort(j, i)
	}
}
