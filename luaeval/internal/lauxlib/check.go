package lauxlib

import (
	"fmt"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// CheckNumber is luaL_checknumber: numbers and numeric strings.
func CheckNumber(L *lua.LState, n int) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := Str2Number(string(v)); ok {
			return f
		}
	}
	TypeError(L, n, "number")
	return 0
}

// CheckInt is luaL_checkint: the number cast to lua_Integer, then to a
// 32-bit C int (so 1e10 becomes 1410065408, as in Redis).
func CheckInt(L *lua.LState, n int) int {
	return int(int32(ToInteger(CheckNumber(L, n))))
}

// OptInt is luaL_optint.
func OptInt(L *lua.LState, n int, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return CheckInt(L, n)
}

// CheckInteger is luaL_checkinteger: the number cast to lua_Integer.
func CheckInteger(L *lua.LState, n int) int64 {
	return ToInteger(CheckNumber(L, n))
}

// OptInteger is luaL_optinteger.
func OptInteger(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return CheckInteger(L, n)
}

// MaxCStack is Lua 5.1's LUAI_MAXCSTACK: how many stack slots a C function
// may hold (lua_checkstack refuses past it).
const MaxCStack = 8000

// CheckStack is luaL_checkstack for a library function about to push n
// values: past MaxCStack slots in use it raises "stack overflow (what)"
// with the caller's position, as luaL_error does.
func CheckStack(L *lua.LState, n int, what string) {
	if n > MaxCStack || L.GetTop()+n > MaxCStack {
		Error(L, "stack overflow ("+what+")")
	}
}

// Error is luaL_error: msg after the position of the Lua function that
// called the library function (none when a Go function called it).
func Error(L *lua.LState, msg string) {
	L.Error(lua.LString(Where(L, 1)+msg), 0)
}

// Errorf is Error with a format. Library functions raise their errors
// with it rather than with gopher-lua's RaiseError, which puts the
// position of the nearest Lua function in front even when a Go function
// called this one: pcall(cjson.decode, s), the usual way to decode
// untrusted JSON, would carry "user_script:1: " where Redis's has none.
func Errorf(L *lua.LState, format string, args ...any) {
	Error(L, fmt.Sprintf(format, args...))
}

// CheckString is luaL_checklstring: strings and numbers (as "%.14g").
func CheckString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return FormatNumber(float64(v))
	}
	TypeError(L, n, "string")
	return ""
}

// CalledAsMethod, when set, reports whether the Go function running in L
// was called as a method (obj:f(...)): Lua 5.1 then numbers its arguments
// as the caller wrote them. Telling needs the calling frame's program
// counter, which only the engine can read, so the engine sets it.
var CalledAsMethod func(L *lua.LState) bool

// ArgError is luaL_argerror: "bad argument #n to 'name' (msg)", or for a
// method call "calling 'name' on bad self (msg)" when self is at fault.
func ArgError(L *lua.LState, n int, msg string) {
	name := "?"
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && dbg.Name != "" {
			name = dbg.Name
		}
	}
	if CalledAsMethod != nil && CalledAsMethod(L) {
		if n--; n == 0 {
			L.RaiseError("calling '%s' on bad self (%s)", name, msg)
		}
	}
	L.RaiseError("bad argument #%d to '%s' (%s)", n, name, msg)
}

// TypeError is luaL_typerror; a missing argument is "no value".
func TypeError(L *lua.LState, n int, expected string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	ArgError(L, n, expected+" expected, got "+got)
}

// Where is luaL_where: "source:line: " for the Lua function at level (1 =
// the function that called the Go function raising the error), "" for a Go
// function or no function.
func Where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	fn, err := L.GetInfo("Slf", dbg, lua.LNil)
	if err != nil {
		return ""
	}
	if f, ok := fn.(*lua.LFunction); !ok || f.IsG || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// ToString is lua_tostring for strings and numbers ("%.14g"), and
// tostring's text for anything else.
func ToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return FormatNumber(float64(x))
	}
	return v.String()
}
