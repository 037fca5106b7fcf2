package luaeval

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/ltablib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// tableLib51 fills the table library with Lua 5.1's (ltablib), which
// refuses writes into protected tables.
func (sb *sandbox) tableLib51(t *lua.LTable) {
	sb.set(t, ltablib.Funcs(func(L *lua.LState, t *lua.LTable) {
		if sb.isProtected(t) {
			L.Error(lua.LString("Attempt to modify a readonly table"), 0)
		}
	}))
}

// ipairs is Lua 5.1's: t[1], t[2] ... up to the first nil, read where the
// table keeps them (a protected table's real one).
func (sb *sandbox) ipairs(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		lauxlib.TypeError(L, 1, "table")
	}
	L.Push(L.Get(lua.UpvalueIndex(1)))
	L.Push(t)
	L.Push(lua.LNumber(0))
	return 3
}

func (sb *sandbox) ipairsAux(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		lauxlib.TypeError(L, 1, "table")
	}
	i := lauxlib.CheckInt(L, 2) + 1
	v := seam.GetInt(sb.realTable(t), i)
	if v == lua.LNil {
		return 0
	}
	L.Push(lua.LNumber(i))
	L.Push(v)
	return 2
}
