package luaeval

import (
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/lbit"
	"github.com/minilock/minilock/luaeval/internal/lcjson"
	"github.com/minilock/minilock/luaeval/internal/lcmsgpack"
	"github.com/minilock/minilock/luaeval/internal/lmathlib"
	"github.com/minilock/minilock/luaeval/internal/lstrlib/strlib"
	"github.com/minilock/minilock/luaeval/internal/lstruct"
	"github.com/minilock/minilock/luaeval/internal/ltablib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// Limits that mirror Lua 5.1's (luaconf.h) so deep recursion fails with Lua's
// "stack overflow" rather than exhausting the Go stack or the heap.
const (
	// LUAI_MAXCALLS is 20000, but Lua 5.1 doubles its call-info array
	// and fails once the doubling would pass it, at 16384 entries
	// (luaD_growCI); after that first overflow luaD_pcall leaves the
	// array at exactly 20000 (restore_stack_limit) until SCRIPT FLUSH
	// makes a new state. A fresh sandbox holds luaFreshCalls frames, then
	// luaMaxCalls (seam.SetCallLimit), not counting the frames of pcall's
	// runner, which Lua has no call info for (CCount.Hidden); the runner
	// of the script itself stands for Lua's base call info: recursion
	// under a pcall overflows after 16381 calls, and after 19997 once
	// anything has overflowed, as in Redis, under two pcalls after 16380
	// and 19996 ... Like a coroutine's, the main thread's call stack grows
	// on demand (seam.ReserveCall); without the hooks it is gopher-lua's
	// fixed stack of luaMaxCalls+1 frames (and no pcall is left out).
	luaMaxCalls   = 20000
	luaFreshCalls = 16384
	luaMaxCStack  = lauxlib.MaxCStack // LUAI_MAXCSTACK: lua_checkstack limit (unpack, reply depth)
	regInitial    = 1024              // registry slots a state starts with
	regMax        = 1 << 21           // registry slots a state may grow to (32 MiB)
	// A coroutine starts with a call stack of one segment (8 frames) and
	// a value stack of coRegInitial slots, both grown on demand
	// (seam.ReserveCall), as Lua 5.1 starts one with 8 call infos and 45
	// stack slots: a suspended coroutine costs about 2 KB, not the
	// 160 KB a preallocated stack of 2,000 frames did. Its own call
	// limit is Lua's in a thread of its own, which has a base call info
	// that gopher-lua's threads lack: coFreshCalls frames (16,383 levels
	// of recursion), coMaxCalls once an overflow was caught in it, not
	// counting the frames of pcall's runner (CCount.Hidden).
	coFreshCalls = luaFreshCalls - 1
	coMaxCalls   = luaMaxCalls - 1
	coRegInitial = 32
	coFixedCalls = 2000 // a coroutine's call stack when the hooks are off
)

// sandbox is the one Lua state every script runs in, arranged so that no
// script can leave anything behind for the next one.
//
// Why it is safe. gopher-lua has no read-only tables, so every table Redis
// protects (the globals, each library table, the globals' metatable and the
// string metatable) is handed to scripts as an empty *proxy* whose metatable
// reads from the real table (__index) and refuses writes (__newindex raises
// "Attempt to modify a readonly table"). Because a proxy stays empty, every
// assignment through it, to an existing name or a new one, reaches
// __newindex. The only other ways to write into a table from Lua are Go
// functions, and every one of them that a script can reach is ours or
// checked: rawset, setmetatable, table.insert/remove/setn refuse proxies;
// getmetatable never returns a real metatable of a protected object;
// next/pairs/rawget read through to the real table, so iteration still
// shows the globals. getfenv/setfenv, debug, newproxy, string.dump bytecode
// and loading of binary chunks are absent, so no function environment can be
// replaced and no real table reached. The real tables are referenced only by
// proxies' metatables, which scripts cannot obtain.
//
// What a script can still change is per run and reset by the engine: KEYS and
// ARGV (refilled each run, see fillArgs), the RESP version chosen with
// redis.setresp, and the Lua stack (unwound by PCall). A Go panic inside
// gopher-lua ends the script with an error (see runScript); one anywhere
// else in a run rebuilds the whole sandbox (see Engine.exec).
type sandbox struct {
	e   *Engine
	L   *lua.LState
	gen uint64 // bumped when the sandbox is rebuilt or KEYS/ARGV replaced

	gReal  *lua.LTable // the real globals, behind gProxy
	gProxy *lua.LTable // _G as scripts see it

	// real maps each proxy to the table it stands for.
	real map[*lua.LTable]*lua.LTable
	// metaOf is what getmetatable returns for a proxy (nil when absent).
	metaOf map[*lua.LTable]lua.LValue
	// strMeta is what getmetatable returns for any string.
	strMeta *lua.LTable

	handler *lua.LFunction // __redis__err__handler
	runner  *lua.LFunction // calls a run's script (runScript)
	forIn   seam.ForIn     // ipairs's iterator and next, for the VM loop

	concatStrs lauxlib.Interner // short results of `..` (seam.ConcatSource)

	keys, argv *lua.LTable       // KEYS and ARGV, refilled for each run (see fillArgs)
	sources    map[string]string // loadstring chunk id -> source, this run

	cjson        *lcjson.Lib // its configuration is reset before each run
	readonly     *lua.LFunction
	pcallRunner  *lua.LFunction // calls the function of the script's pcall (pcallRun)
	readerRunner *lua.LFunction // calls load's reader (readerRun)
	coInit       *lua.LFunction // sets a coroutine's panic function (coStart)
	overflowed   bool           // a call-stack overflow happened: the limit is luaMaxCalls
}

// sandboxGen numbers sandboxes so a script knows when its closure was made
// for an older one. Engines start concurrently (several servers in one
// process), hence atomic.
var sandboxGen atomic.Uint64

func newSandbox(e *Engine) *sandbox {
	opts := lua.Options{
		SkipOpenLibs:     true,
		CallStackSize:    luaMaxCalls + 1,
		RegistrySize:     regInitial,
		RegistryMaxSize:  regMax,
		RegistryGrowStep: 256,
	}
	if seam.Enabled() {
		opts.CallStackSize, opts.MinimizeStackMemory = lua.FramesPerSegment, true
	}
	L := lua.NewState(opts)
	seam.SetCallLimit(L, luaFreshCalls)
	sb := &sandbox{
		e:      e,
		L:      L,
		gen:    sandboxGen.Add(1),
		real:   make(map[*lua.LTable]*lua.LTable),
		metaOf: make(map[*lua.LTable]lua.LValue),
	}
	// gopher-lua's own libraries, loaded into its default globals; we pick
	// the functions we keep from there and build our own globals.
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{"", lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	orig := L.G.Global

	sb.gReal = L.CreateTable(0, 48)
	sb.readonly = L.NewFunction(luaReadonlyError)
	sb.gProxy = sb.proxy(sb.gReal)
	// Everything made from here on gets the proxy as its environment.
	L.Env = sb.gProxy

	gmeta := L.CreateTable(0, 1)
	gmeta.RawSetString("__index", L.NewFunction(luaNonexistentGlobal))
	sb.gReal.Metatable = gmeta
	sb.metaOf[sb.gProxy] = sb.proxy(gmeta)

	sb.keys, sb.argv = L.CreateTable(8, 0), L.CreateTable(8, 0)
	sb.gReal.RawSetString("KEYS", sb.keys)
	sb.gReal.RawSetString("ARGV", sb.argv)
	sb.handler = L.NewFunction(sb.errHandler)
	sb.runner = L.NewFunction(sb.runScript)
	sb.pcallRunner = L.NewFunction(sb.pcallRun)
	sb.readerRunner = L.NewFunction(sb.readerRun)
	sb.installBase(orig)

	// The Lua 5.1 library ports (luaeval/internal/l*), each installed
	// read-only.
	sb.lib("string", orig.RawGetString("string").(*lua.LTable), func(t *lua.LTable) {
		strlib.Open(L, t)
		sb.forIn.Byte, _ = t.RawGetString("byte").(*lua.LFunction)
	}, stringLayout)
	sb.lib("table", orig.RawGetString("table").(*lua.LTable), sb.tableLib51, tableLayout)
	sb.lib("math", orig.RawGetString("math").(*lua.LTable), func(t *lua.LTable) { lmathlib.Open(L, t, &e.rng) }, mathLayout)
	sb.lib("coroutine", orig.RawGetString("coroutine").(*lua.LTable), sb.coroutineLib, coroutineLayout)
	sb.lib("cjson", L.CreateTable(0, 16), func(t *lua.LTable) { sb.cjson = lcjson.Open(L, t, libHost{sb}) }, nil)
	sb.lib("bit", L.CreateTable(0, 12), func(t *lua.LTable) { sb.set(t, lbit.Funcs()) }, bitLayout)
	sb.lib("struct", L.CreateTable(0, 3), func(t *lua.LTable) { sb.set(t, lstruct.Funcs()) }, structLayout)
	sb.lib("cmsgpack", L.CreateTable(0, 8), func(t *lua.LTable) { lcmsgpack.Open(L, t, libHost{sb}) }, nil)
	sb.lib("redis", L.CreateTable(0, 32), func(t *lua.LTable) { e.redisLib(sb, t) }, redisLayout)

	// The string metatable: {__index = string}, read-only like Redis's.
	strMT := L.CreateTable(0, 1)
	strMT.RawSetString("__index", sb.gReal.RawGetString("string"))
	L.SetMetatable(lua.LString(""), strMT)
	sb.strMeta = sb.proxy(strMT)

	// The globals as Redis's Lua lays them out (globalsLayout), so pairs
	// over _G walks them in Redis's order.
	g := globalsLayout.build(L, sb.gReal)
	g.Metatable = sb.gReal.Metatable
	delete(sb.real, sb.gProxy)
	sb.gReal = g
	sb.real[sb.gProxy] = g
	sb.gProxy.Metatable.(*lua.LTable).RawSetString("__index", g)

	seam.SetContext(L, runCtx{&e.ctl, sb})
	return sb
}

// tableLib51 fills the table library with Lua 5.1's (ltablib), which
// refuses writes into protected tables.
func (sb *sandbox) tableLib51(t *lua.LTable) {
	sb.set(t, ltablib.Funcs(func(L *lua.LState, t *lua.LTable) {
		if sb.isProtected(t) {
			L.Error(lua.LString("Attempt to modify a readonly table"), 0)
		}
	}))
}

// proxy returns a new read-only stand-in for t.
func (sb *sandbox) proxy(t *lua.LTable) *lua.LTable {
	p := sb.L.CreateTable(0, 0)
	mt := sb.L.CreateTable(0, 2)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", sb.readonly)
	p.Metatable = mt
	sb.real[p] = t
	return p
}

// lib fills t with fill (which may replace gopher-lua's functions) and
// installs it as the read-only global name. With a layout, the table
// installed is a new one filled from t as Redis's Lua fills the library
// (see libLayout), so pairs walks it in Redis's order.
func (sb *sandbox) lib(name string, t *lua.LTable, fill func(*lua.LTable), layout *libLayout) {
	if t.Metatable != lua.LNil {
		t.Metatable = lua.LNil
	}
	t.RawSetString("__index", lua.LNil) // gopher-lua's string table carries one
	if fill != nil {
		fill(t)
	}
	if layout != nil {
		t = layout.build(sb.L, t)
	}
	sb.gReal.RawSetString(name, sb.proxy(t))
}

// realTable returns the table a protected proxy stands for, or t itself.
func (sb *sandbox) realTable(t *lua.LTable) *lua.LTable {
	if r, ok := sb.real[t]; ok {
		return r
	}
	return t
}

// isProtected reports whether t is one of the read-only proxies.
func (sb *sandbox) isProtected(t *lua.LTable) bool {
	_, ok := sb.real[t]
	return ok
}

// libHost is what the cjson and cmsgpack ports see of the sandbox.
type libHost struct{ sb *sandbox }

func (h libHost) Real(t *lua.LTable) *lua.LTable { return h.sb.realTable(t) }
func (h libHost) MaxStringBytes() int            { return h.sb.e.cfg.MaxStringBytes }

// set registers Go functions in t.
func (sb *sandbox) set(t *lua.LTable, fns map[string]lua.LGFunction) {
	for k, f := range fns {
		t.RawSetString(k, sb.L.NewFunction(f))
	}
}

// luaReadonlyError is every proxy's __newindex (lapi.c's readonly check).
func luaReadonlyError(L *lua.LState) int {
	L.RaiseError("Attempt to modify a readonly table")
	return 0
}

// luaNonexistentGlobal is the globals' __index
// (script_lua.c:luaProtectedTableError).
func luaNonexistentGlobal(L *lua.LState) int {
	if L.GetTop() != 2 {
		L.RaiseError("Wrong number of arguments to luaProtectedTableError")
	}
	k := L.Get(2)
	switch k.(type) {
	case lua.LString, lua.LNumber:
	default:
		L.RaiseError("Second argument to luaProtectedTableError must be a string or number")
	}
	L.RaiseError("Script attempted to access nonexistent global variable '%s'", redisstr.CString([]byte(lauxlib.ToString(k))))
	return 0
}
