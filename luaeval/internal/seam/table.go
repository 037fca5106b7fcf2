package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// Tables. Every write into a Lua table that minilock makes (the engine's
// conversions, the libraries) goes through these functions, never through
// *lua.LTable's own Raw* setters, so that the table keeps one layout. Reads
// may use LTable's RawGet, RawGetInt, RawGetString and RawGetH. Next and
// Len are Lua's lua_next and the `#` operator.
//
// TODO(tables): Lua 5.1's layout (ltable.c). Until then these delegate to
// gopher-lua's own table.

// NewTable is lua_createtable: a table with room for narr array items and
// nrec other keys.
func NewTable(L *lua.LState, narr, nrec int) *lua.LTable {
	return L.CreateTable(narr, nrec)
}

// RawSet is lua_rawset. k must not be nil or NaN (the caller raises Lua's
// error for those first).
func RawSet(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	t.RawSet(k, v)
}

// RawSetInt is lua_rawseti.
func RawSetInt(L *lua.LState, t *lua.LTable, i int, v lua.LValue) {
	t.RawSetInt(i, v)
}

// RawSetString is t[k] = v for a string key, without metamethods.
func RawSetString(L *lua.LState, t *lua.LTable, k string, v lua.LValue) {
	t.RawSetString(k, v)
}

// Next is lua_next: the key and value after k (nil: the first), or nil
// when k was the last. ok is false when k is not a key of t (Lua's
// "invalid key to 'next'").
func Next(t *lua.LTable, k lua.LValue) (nk, v lua.LValue, ok bool) {
	nk, v = t.Next(k)
	return nk, v, true
}

// Len is the `#` operator on a table (ltable.c:luaH_getn): a border, that
// is an n with t[n] non-nil and t[n+1] nil, or 0.
func Len(t *lua.LTable) int {
	return t.Len()
}
