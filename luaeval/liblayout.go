package luaeval

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// libLayout is how Redis's Lua fills a library table, which decides its
// node layout and so the order next and pairs walk it in: a new table
// with room for hint keys (luaL_register's luaL_findtable sizes it for
// its luaL_Reg array; lua_newtable: 0), then keys set one by one with
// lua_setfield in keys' order. A key set twice keeps its first node. A
// key written "-k" is k set to nil, which leaves a dead node for later
// keys to collide with until the next rehash: a key Redis removes after
// filling (k gets a stand-in value until then when the port never had
// it), or one set to nil as a new key.
type libLayout struct {
	hint int
	keys []string
}

// build returns a new table in Lua's layout holding from's keys, set in
// l's order through the seam (ltable.c's placement). Every key of from
// must be listed: a library port that gains a function must say where
// Redis puts it.
func (l *libLayout) build(L *lua.LState, from *lua.LTable) *lua.LTable {
	t := seam.NewTable(L, 0, l.hint)
	listed := make(map[string]bool, len(l.keys))
	removed := make(map[string]bool)
	for _, k := range l.keys {
		if strings.HasPrefix(k, "-") {
			removed[k[1:]] = true
		}
	}
	for _, k := range l.keys {
		if name, ok := strings.CutPrefix(k, "-"); ok {
			seam.RawSetString(L, t, name, lua.LNil)
			continue
		}
		listed[k] = true
		v := from.RawGetString(k)
		if v == lua.LNil {
			if !removed[k] {
				panic(fmt.Sprintf("luaeval: library layout lists %q, which the port lacks", k))
			}
			v = lua.LTrue
		}
		seam.RawSetString(L, t, k, v)
	}
	from.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); !ok || !listed[string(s)] {
			panic(fmt.Sprintf("luaeval: library key %v missing from its layout", k))
		}
	})
	return t
}

// globalsLayout is the history of Redis 7.0's globals, a table of 2 nodes
// (lstate.c:f_luaopen) written through the allow list's __newindex
// (script_lua.c:luaNewIndexAllowList): luaopen_base (lbaselib.c: _G, its
// base_funcs, _VERSION, ipairs, pairs, newproxy, coroutine), the
// libraries in luaLoadLibraries' order (debug among them), redis, then
// eval.c's error handler chunk (debug = nil, __redis__err__handler), and
// KEYS and ARGV, which the first script run sets. A name the allow list
// refuses (dofile, getfenv, loadfile, print, setfenv, newproxy) still
// gets its node: lvm.c:luaV_settable makes the key (luaH_set) before it
// finds the __newindex that declines to store a value, so each leaves a
// dead node where it was set ("-name").
var globalsLayout = &libLayout{2, []string{
	"_G", "assert", "collectgarbage", "-dofile", "error", "gcinfo", "-getfenv", "getmetatable",
	"-loadfile", "load", "loadstring", "next", "pcall", "-print", "rawequal", "rawget", "rawset",
	"select", "-setfenv", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall",
	"_VERSION", "ipairs", "pairs", "-newproxy", "coroutine",
	"table", "string", "math", "debug", "cjson", "struct", "cmsgpack", "bit",
	"redis", "-debug", "__redis__err__handler", "KEYS", "ARGV",
}}

// Lua 5.1's luaL_Reg arrays (lstrlib.c, ltablib.c, lmathlib.c,
// lbaselib.c's co_funcs, lua_bit.c, lua_struct.c) and what their
// luaopen_* functions set after them.
var (
	// luaopen_string: then gfind = gmatch (LUA_COMPAT_GFIND), the same
	// node as gfind_nodef's.
	stringLayout = &libLayout{15, []string{
		"byte", "char", "dump", "find", "format", "gfind", "gmatch", "gsub",
		"len", "lower", "match", "rep", "reverse", "sub", "upper",
	}}
	tableLayout = &libLayout{9, []string{
		"concat", "foreach", "foreachi", "getn", "maxn", "insert", "remove", "setn", "sort",
	}}
	// luaopen_math: then pi, huge and mod (= fmod, LUA_COMPAT_MOD).
	mathLayout = &libLayout{28, []string{
		"abs", "acos", "asin", "atan2", "atan", "ceil", "cosh", "cos", "deg", "exp",
		"floor", "fmod", "frexp", "ldexp", "log10", "log", "max", "min", "modf", "pow",
		"rad", "random", "randomseed", "sinh", "sin", "sqrt", "tanh", "tan",
		"pi", "huge", "mod",
	}}
	coroutineLayout = &libLayout{6, []string{"create", "resume", "running", "status", "wrap", "yield"}}
	bitLayout       = &libLayout{12, []string{
		"tobit", "bnot", "band", "bor", "bxor", "lshift", "rshift", "arshift", "rol", "ror", "bswap", "tohex",
	}}
	structLayout = &libLayout{3, []string{"pack", "unpack", "size"}}
	// script_lua.c:luaRegisterRedisAPI (a lua_newtable), then
	// eval.c:scriptingInit's additions.
	redisLayout = &libLayout{0, []string{
		"call", "pcall", "log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
		"REDIS_VERSION_NUM", "REDIS_VERSION", "setresp", "sha1hex", "error_reply", "status_reply",
		"set_repl", "REPL_NONE", "REPL_AOF", "REPL_SLAVE", "REPL_REPLICA", "REPL_ALL",
		"acl_check_cmd",
		"breakpoint", "debug", "replicate_commands",
	}}
)
