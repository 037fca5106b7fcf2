package luaeval

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// installBase fills the real globals with Redis 7.0's allow list of Lua
// builtins (script_lua.c:lua_builtins_allow_list). getfenv, setfenv and
// newproxy are not on it in 7.0.15, nor are print, dofile, loadfile,
// require, module and debug.
func (sb *sandbox) installBase(orig *lua.LTable) {
	g := sb.gReal
	// gopher-lua's versions behave as Lua 5.1's for these.
	for _, k := range []string{"rawequal", "type"} {
		g.RawSetString(k, orig.RawGetString(k))
	}
	g.RawSetString("_G", sb.gProxy)
	g.RawSetString("_VERSION", lua.LString("Lua 5.1"))
	aux := sb.L.NewFunction(sb.ipairsAux)
	g.RawSetString("ipairs", sb.L.NewClosure(sb.ipairs, aux))
	next := sb.L.NewFunction(sb.next)
	sb.forIn = seam.ForIn{IpairsAux: aux, Next: next, Real: sb.realTable}
	g.RawSetString("next", next)
	g.RawSetString("pairs", sb.L.NewClosure(func(L *lua.LState) int {
		L.CheckTable(1)
		L.Push(L.Get(lua.UpvalueIndex(1)))
		L.Push(L.Get(1))
		L.Push(lua.LNil)
		return 3
	}, next))
	sb.set(g, map[string]lua.LGFunction{
		"error":          sb.luaErrorFn,
		"assert":         luaAssert,
		"select":         luaSelect,
		"rawget":         sb.rawget,
		"rawset":         sb.rawset,
		"getmetatable":   sb.getmetatable,
		"setmetatable":   sb.setmetatable,
		"tostring":       luaTostringFn,
		"tonumber":       luaTonumberFn,
		"unpack":         luaUnpack,
		"pcall":          sb.pcall,
		"xpcall":         sb.xpcall,
		"loadstring":     sb.loadstring,
		"load":           sb.load,
		"collectgarbage": sb.collectgarbage,
		"gcinfo":         sb.gcinfo,
	})
	g.RawSetString("__redis__err__handler", sb.handler)
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
	L.Push(lauxlib.Number(L, 0))
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
	L.Push(lauxlib.Number(L, i))
	L.Push(v)
	return 2
}

// luaErrorFn is Lua 5.1's error(): a string (or number) message gets the
// position of the function at level (1 = the caller of error).
func (sb *sandbox) luaErrorFn(L *lua.LState) int {
	level := lauxlib.OptInt(L, 2, 1)
	L.SetTop(1)
	v := L.Get(1)
	switch v.(type) {
	case lua.LString, lua.LNumber:
		if level > 0 {
			v = lua.LString(lauxlib.Where(L, sb.stackLevel(L, level)) + lauxlib.ToString(v))
		}
	}
	L.Error(v, 0)
	return 0
}

// stackLevel turns a Lua stack level into gopher-lua's, skipping the
// engine's own Go frames that Lua would not have (the runners that pcall,
// xpcall and the script itself are called through).
func (sb *sandbox) stackLevel(L *lua.LState, level int) int {
	n := 0
	for i := 0; ; i++ {
		dbg, ok := L.GetStack(i)
		if !ok {
			return i
		}
		if fn, err := L.GetInfo("f", dbg, lua.LNil); err == nil && (fn == sb.pcallRunner || fn == sb.runner) {
			continue
		}
		if n == level {
			return i
		}
		n++
	}
}

// next is lua_next over the table's layout (seam.Next): Lua 5.1's order.
func (sb *sandbox) next(L *lua.LState) int {
	t := sb.realTable(L.CheckTable(1))
	k, v, ok := seam.Next(t, L.Get(2))
	if !ok {
		// luaG_runerror inside a C function: no position.
		L.Error(lua.LString("invalid key to 'next'"), 0)
	}
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (sb *sandbox) rawget(L *lua.LState) int {
	t := sb.realTable(L.CheckTable(1))
	L.Push(seam.Get(t, L.CheckAny(2)))
	return 1
}

func (sb *sandbox) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	k := L.CheckAny(2)
	v := L.CheckAny(3)
	if sb.isProtected(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	checkKey(L, k)
	seam.RawSet(L, t, k, v)
	L.SetTop(1)
	return 1
}

// checkKey rejects the keys Lua 5.1 cannot store (ltable.c:luaH_set).
func checkKey(L *lua.LState, k lua.LValue) {
	switch x := k.(type) {
	case *lua.LNilType:
		L.Error(lua.LString("table index is nil"), 0)
	case lua.LNumber:
		if x != x {
			L.Error(lua.LString("table index is NaN"), 0)
		}
	}
}

// getmetatable never returns a protected object's real metatable: the
// globals get a read-only copy of theirs, library tables have none, strings
// get the read-only string metatable (lbaselib.c:luaB_getmetatable honours
// __metatable).
func (sb *sandbox) getmetatable(L *lua.LState) int {
	v := L.CheckAny(1)
	switch x := v.(type) {
	case *lua.LTable:
		if sb.isProtected(x) {
			if m, ok := sb.metaOf[x]; ok {
				L.Push(m)
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}
	case lua.LString:
		L.Push(sb.strMeta)
		return 1
	}
	L.Push(L.GetMetatable(v))
	return 1
}

// setmetatable works on tables only, as in Lua 5.1; a protected table
// refuses (lapi.c:lua_setmetatable's readonly check).
func (sb *sandbox) setmetatable(L *lua.LState) int {
	t := L.CheckTable(1)
	mt := L.Get(2)
	switch mt.(type) {
	case *lua.LNilType, *lua.LTable:
	default:
		lauxlib.ArgError(L, 2, "nil or table expected")
	}
	if old, ok := t.Metatable.(*lua.LTable); ok && old.RawGetString("__metatable") != lua.LNil {
		lauxlib.Error(L, "cannot change a protected metatable")
	}
	if sb.isProtected(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
	t.Metatable = mt
	L.SetTop(1)
	return 1
}

func luaTostringFn(L *lua.LState) int {
	v := L.CheckAny(1)
	if n, ok := v.(lua.LNumber); ok {
		L.Push(lua.LString(lauxlib.FormatNumber(float64(n))))
		return 1
	}
	if L.GetMetaField(v, "__tostring").Type() == lua.LTFunction {
		// luaL_callmeta calls __tostring with lua_call: a C boundary.
		defer lauxlib.LeaveC(L)
		lauxlib.EnterC(L)
	}
	L.Push(L.ToStringMeta(v))
	return 1
}

// luaTonumberFn is Lua 5.1's tonumber: base 10 uses strtod (so "1e5",
// " 0x10 ", "inf"-less), other bases strtoul.
func luaTonumberFn(L *lua.LState) int {
	base := lauxlib.OptInt(L, 2, 10)
	if base == 10 {
		v := L.CheckAny(1)
		switch x := v.(type) {
		case lua.LNumber:
			L.Push(x)
			return 1
		case lua.LString:
			if f, ok := lauxlib.Str2Number(string(x)); ok {
				L.Push(lauxlib.Number(L, f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := lauxlib.CheckString(L, 1)
	if base < 2 || base > 36 {
		lauxlib.ArgError(L, 2, "base out of range")
	}
	if n, ok := strtoul(s, base); ok {
		L.Push(lauxlib.Number(L, float64(n)))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// strtoul is what tonumber with a base makes of s: C's strtoul (leading
// white space, a sign — a '-' negates modulo 2^64 —, "0x" for base 16,
// ULONG_MAX past 64 bits), then only white space up to the string's end,
// which for C is its first NUL.
func strtoul(s string, base int) (uint64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if base == 16 && len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && digitVal(t[2]) < 16 {
		t = t[2:]
	}
	var n uint64
	over := false
	i := 0
	for ; i < len(t) && digitVal(t[i]) < base; i++ {
		d := uint64(digitVal(t[i]))
		if n > (math.MaxUint64-d)/uint64(base) {
			over = true
		}
		n = n*uint64(base) + d
	}
	if i == 0 || strings.TrimLeft(t[i:], " \t\n\r\v\f") != "" {
		return 0, false
	}
	switch {
	case over:
		n = math.MaxUint64
	case neg:
		n = -n
	}
	return n, true
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// luaUnpack is Lua 5.1's unpack with its lua_checkstack limit, so a huge
// range fails with "too many results to unpack" instead of filling memory.
func luaUnpack(L *lua.LState) int {
	t := L.CheckTable(1)
	i := int64(lauxlib.OptInt(L, 2, 1))
	var e int64
	if L.Get(3) == lua.LNil {
		e = int64(seam.Len(t))
	} else {
		e = int64(lauxlib.CheckInt(L, 3))
	}
	if i > e {
		return 0
	}
	n := e - i + 1
	if n <= 0 || n+int64(L.GetTop()) > luaMaxCStack || n >= 1<<31-1 {
		lauxlib.Error(L, "too many results to unpack")
	}
	for k := i; k <= e; k++ {
		L.Push(seam.GetInt(t, int(k)))
	}
	return int(n)
}

// pcall is Redis's (script_lua.c:luaRedisPcall): an error table from
// redis.call comes back as its err string, for compatibility with Redis 6;
// xpcall is Lua's own and hands its handler the table.
// A Go panic inside gopher-lua is not swallowed: it propagates, and the
// script ends with it as its error (runScript).
func (sb *sandbox) pcall(L *lua.LState) int {
	if L.GetTop() == 0 {
		// luaRedisPcall pushes its result placeholder, true, first, and
		// with nothing else that is what it calls.
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a boolean value"))
		return 2
	}
	v := L.Get(1)
	if !callable(L, v) {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	top := L.GetTop()
	L.Insert(sb.pcallRunner, 1)
	keep := seam.KeepUpvalues(L, false)
	err := L.PCall(top, lua.MultRet, nil)
	seam.KeepUpvalues(L, keep) // PCall clears it
	if err != nil {
		lauxlib.Of(L).CCalls(L).Raising = false
		L.Push(lua.LFalse)
		obj := sb.caught(err)
		t, ok := obj.(*lua.LTable)
		if !ok {
			L.Push(obj)
			return 2
		}
		// luaRedisPcall reads an error table's err field with
		// lua_getfield: a string (or a number, lua_isstring) replaces
		// the table; anything else stays on the stack after it, a third
		// result (nil, mostly).
		switch v := seam.GetTable(L, t, lua.LString("err")).(type) {
		case lua.LString, lua.LNumber:
			L.Push(v)
			return 2
		default:
			L.Push(t)
			L.Push(v)
			return 3
		}
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// xpcall is Lua 5.1's: f is called with no arguments; on an error, handler
// is called with the error and its first result is returned after false.
//
// Lua calls the handler at the point of the error, one C call deeper, and
// an error inside the handler calls the handler again, deeper still, until
// LUAI_MAXCCALLS + 1/8 ("error in error handling", ldo.c's LUA_ERRERR):
// ldebug.c:luaG_errormsg. Here f's frames are gone when the handler runs,
// so the depth of the error point is restored instead: f's own level, one
// below xpcall's, which is where an error escaping f is raised unless some
// other C boundary lies in between.
func (sb *sandbox) xpcall(L *lua.LState) int {
	if L.GetTop() < 2 {
		lauxlib.ArgError(L, 2, "value expected")
	}
	L.SetTop(2)
	f, handler := L.Get(1), L.Get(2)
	L.SetTop(0)
	var obj lua.LValue
	if !callable(L, f) {
		// Raised by the call itself, from C: no position.
		obj = lua.LString("attempt to call a " + f.Type().String() + " value")
	} else {
		L.Push(sb.pcallRunner)
		L.Push(f)
		keep := seam.KeepUpvalues(L, false)
		err := L.PCall(1, lua.MultRet, nil)
		seam.KeepUpvalues(L, keep) // PCall clears it
		if err == nil {
			L.Insert(lua.LTrue, 1)
			return L.GetTop()
		}
		obj = sb.caught(err)
	}
	if handler.Type() != lua.LTFunction {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString("error in error handling"))
		return 2
	}
	c := lauxlib.Of(L).CCalls(L)
	saved := c.N
	defer func() { c.N, c.Raising = saved, false }()
	// The handler runs one C call deeper than where the error was raised
	// (CCount.RaisedAt), entered by pcallRun's own count.
	where := ""
	raisedAt := func(fallback int) int {
		if c.Raising {
			c.Raising, where = false, c.RaisedWhere
			return max(c.RaisedAt, fallback)
		}
		return fallback
	}
	for at := raisedAt(saved + 1); ; {
		if at+1 == lauxlib.MaxCCalls {
			// The handler's call is the 200th: it fails, as raised
			// where the error was (luaG_runerror), and the handler is
			// called one deeper with that error instead.
			obj, at = lua.LString(where+"C stack overflow"), at+1
			continue
		}
		c.N = at
		L.SetTop(0)
		L.Push(sb.pcallRunner)
		L.Push(handler)
		L.Push(obj)
		keep := seam.KeepUpvalues(L, false)
		err := L.PCall(2, 1, nil)
		seam.KeepUpvalues(L, keep) // PCall clears it
		if err == nil {
			obj = L.Get(-1)
			break
		}
		obj = sb.caught(err)
		if m, ok := obj.(lua.LString); ok && m == "error in error handling" {
			break
		}
		at = raisedAt(at + 1)
	}
	L.SetTop(0)
	L.Push(lua.LFalse)
	L.Push(obj)
	return 2
}

// callable reports whether v can be called: a function, or a value whose
// metatable has a __call function.
func callable(L *lua.LState, v lua.LValue) bool {
	return v.Type() == lua.LTFunction || L.GetMetaField(v, "__call").Type() == lua.LTFunction
}

// caught is the error object a protected call of the script's caught: a
// message in Lua 5.1's wording, or the table that was raised (pcall then
// reads its err field). A Go panic inside gopher-lua is not the script's to catch: it
// propagates, and the script ends with it as its error (runScript).
func (sb *sandbox) caught(err error) lua.LValue {
	ae, ok := err.(*lua.ApiError)
	if ok && ae.Type == lua.ApiErrorPanic {
		panic(ae)
	}
	var obj lua.LValue = lua.LString(err.Error())
	if ok {
		obj = ae.Object
	}
	if x, ok := obj.(lua.LString); ok {
		obj = lua.LString(translateRuntime(string(x)))
	}
	return obj
}

// collectgarbage answers like Lua without collecting: a Go GC per call would
// stall the whole process, and the Go runtime collects on its own.
func (sb *sandbox) collectgarbage(L *lua.LState) int {
	opt := L.OptString(1, "collect")
	switch opt {
	case "collect", "stop", "restart":
		L.Push(lauxlib.Number(L, 0))
	case "count":
		L.Push(lauxlib.Number(L, sb.heapKB()))
	case "step":
		L.Push(lua.LFalse)
	case "setpause", "setstepmul":
		L.Push(lauxlib.Number(L, 200))
	default:
		lauxlib.ArgError(L, 1, "invalid option '"+opt+"'")
	}
	return 1
}

func (sb *sandbox) gcinfo(L *lua.LState) int {
	L.Push(lauxlib.Number(L, int64(sb.heapKB())))
	return 1
}

// heapKB is a plausible Lua memory figure: the watchdog's last heap sample,
// or a small constant before the first one.
func (sb *sandbox) heapKB() float64 {
	if h := sb.e.ctl.heapLast.Load(); h > 0 {
		return float64(h) / 1024
	}
	return 32
}

// loadstring compiles Lua source only: binary chunks are refused (Redis
// patches lua_load the same way), so string.dump output cannot be run.
func (sb *sandbox) loadstring(L *lua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, src)
	return sb.loadChunk(L, src, name)
}

// load takes a reader function, as in Lua 5.1.
func (sb *sandbox) load(L *lua.LState) int {
	f := L.CheckFunction(1)
	name := L.OptString(2, "=(load)")
	var b strings.Builder
	for {
		L.Push(sb.readerRunner)
		L.Push(f)
		keep := seam.KeepUpvalues(L, false)
		err := L.PCall(1, 1, nil)
		seam.KeepUpvalues(L, keep) // PCall clears it
		if err != nil {
			// lua_load reads its chunk in protected mode: an error in
			// the reader is load's second result.
			lauxlib.Of(L).CCalls(L).Raising = false
			L.Push(lua.LNil)
			L.Push(sb.caught(err))
			return 2
		}
		r := L.Get(-1)
		L.Pop(1)
		if r == lua.LNil {
			break
		}
		s, ok := r.(lua.LString)
		if !ok {
			if n, isNum := r.(lua.LNumber); isNum {
				s = lua.LString(lauxlib.FormatNumber(float64(n)))
			} else {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
		}
		if len(s) == 0 {
			break
		}
		if b.Len()+len(s) > sb.e.cfg.MaxStringBytes {
			L.RaiseError("not enough memory")
		}
		b.WriteString(string(s))
	}
	return sb.loadChunk(L, b.String(), name)
}

// readerRun calls load's reader (its argument) as lua_load does: from C (a
// C boundary), in protected mode. An error in it becomes what the thread's
// error handler in effect makes of it, as luaD_protectedparser passes
// L->errfunc on: Redis's __redis__err__handler (its table: err, source,
// line) when the main script is not inside a pcall, the error itself
// inside a pcall or a coroutine (which have none). Inside an xpcall
// Lua would call its handler; minilock passes the error itself.
func (sb *sandbox) readerRun(L *lua.LState) int {
	base := seam.FrameBase(L)
	seam.KeepUpvalues(L, true)
	defer func() {
		if r := recover(); r != nil {
			seam.CloseUpvalues(L, base) // as pcallRun
			ae, ok := r.(*lua.ApiError)
			if !ok {
				panic(r)
			}
			obj := ae.Object
			if sb.redisHandlerInEffect(L) {
				se := sb.describeError(L, obj, 0).Value.(*scriptError)
				t := L.CreateTable(0, 3)
				if et, ok := obj.(*lua.LTable); ok {
					t = et
				} else {
					t.RawSetString("err", lua.LString(se.msg))
				}
				if se.hasPos {
					t.RawSetString("source", lua.LString(se.source))
					t.RawSetString("line", lua.LNumber(se.line))
				}
				obj = t
			} else {
				obj = sb.nameVariables(L, goArgError(L, obj), 0)
				if s, ok := obj.(lua.LString); ok {
					obj = lua.LString(translateRuntime(string(s)))
				}
			}
			panic(&lua.ApiError{Type: ae.Type, Object: obj, StackTrace: "(recorded by readerRun)"})
		}
	}()
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	L.Call(0, 1)
	return 1
}

// redisHandlerInEffect reports whether an error raised now in L would reach
// Redis's error handler: L is the main thread and the nearest protected
// call on its stack is the script's own, not a pcall's.
func (sb *sandbox) redisHandlerInEffect(L *lua.LState) bool {
	if L != sb.L {
		return false
	}
	for i := 0; ; i++ {
		dbg, ok := L.GetStack(i)
		if !ok {
			return false
		}
		switch fn, _ := L.GetInfo("f", dbg, lua.LNil); fn {
		case sb.runner:
			return true
		case sb.pcallRunner:
			return false
		}
	}
}

func (sb *sandbox) loadChunk(L *lua.LState, src, name string) int {
	id := chunkID(name)
	proto, err := compileChunk([]byte(src), name, sb.loadOptions(L))
	if compileStopped(err) {
		L.RaiseError("%s", err.Error()) // as lauxlib.Poll does
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(compileMessage(err)))
		return 2
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = sb.gProxy
	if id != name {
		// Errors name the chunk by its id, the reply's "on ..." by its
		// source (ldebug.c's ar.source).
		if sb.sources == nil {
			sb.sources = make(map[string]string)
		}
		sb.sources[id] = name
	}
	L.Push(fn)
	return 1
}

// luaAssert is Lua 5.1's assert: its first argument is required.
func luaAssert(L *lua.LState) int {
	if L.GetTop() == 0 {
		lauxlib.ArgError(L, 1, "value expected")
	}
	if !lua.LVAsBool(L.Get(1)) {
		msg := "assertion failed!"
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			msg = lauxlib.CheckString(L, 2)
		}
		lauxlib.Error(L, msg)
	}
	return L.GetTop()
}

// luaSelect is Lua 5.1's select: "#" (any string starting with '#')
// counts, anything else is luaL_checkint'ed.
func luaSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 && s[0] == '#' {
		L.Push(lauxlib.Number(L, n-1))
		return 1
	}
	i := lauxlib.CheckInt(L, 1)
	if i < 0 {
		i = n + i
	} else if i > n {
		i = n
	}
	if i < 1 {
		lauxlib.ArgError(L, 1, "index out of range")
	}
	return n - i
}
