package luaeval

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/resp"
)

// Redis version the redis table reports (version.h of 7.0.15).
const (
	redisVersion    = "7.0.15"
	redisVersionNum = 0x0007000f
)

// redisLib fills the redis table (script_lua.c:luaRegisterRedisAPI and
// eval.c:scriptingInit).
func (e *Engine) redisLib(sb *sandbox, t *lua.LTable) {
	sb.set(t, map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return e.luaCall(L, true) },
		"pcall":              func(L *lua.LState) int { return e.luaCall(L, false) },
		"log":                e.luaLog,
		"setresp":            e.luaSetResp,
		"sha1hex":            luaSha1hex,
		"error_reply":        luaErrorReply,
		"status_reply":       luaStatusReply,
		"set_repl":           luaSetRepl,
		"replicate_commands": luaTrue,
		"breakpoint":         luaFalse, // true only inside the debugger
		"debug":              luaNothing,
		"acl_check_cmd":      e.luaACLCheck,
	})
	for k, v := range map[string]float64{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		t.RawSetString(k, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
}

func luaTrue(L *lua.LState) int    { L.Push(lua.LTrue); return 1 }
func luaFalse(L *lua.LState) int   { L.Push(lua.LFalse); return 1 }
func luaNothing(L *lua.LState) int { return 0 }

// errTable is luaPushErrorBuff: "-CODE msg" keeps its code, anything else
// gets ERR; trailing CR/LF are trimmed.
func errTable(L *lua.LState, text string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(errReplyText(text)))
	return t
}

func errReplyText(text string) string {
	var code, msg string
	if strings.HasPrefix(text, "-") {
		if i := strings.IndexByte(text, ' '); i >= 0 {
			code, msg = text[1:i], text[i+1:]
		} else {
			code, msg = "ERR", text[1:]
		}
	} else {
		code, msg = "ERR", text
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// luaCall is redis.call (raise) and redis.pcall
// (script_lua.c:luaRedisGenericCommand).
func (e *Engine) luaCall(L *lua.LState, raise bool) int {
	if !e.run.active {
		L.Error(errTable(L, "redis.call/pcall can only be called inside a script invocation"), 0)
	}
	if msg := e.scriptArgs(L); msg != "" {
		t := errTable(L, msg)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	if !e.ctl.enterCall() {
		L.RaiseError("%s", errScriptKilled.Error())
	}
	e.callHost()
	v, isErr := e.replyToLua(L, e.callW.B)
	e.trimCallBuffers()
	if isErr && raise {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// callHost runs e.argv through the host (the caller has passed enterCall);
// the reply is in e.callW.B until the next call.
func (e *Engine) callHost() {
	e.callW.B = e.callW.B[:0]
	e.callW.Proto = e.run.resp
	wrote := e.run.host.Call(e.argv, e.run.readOnly, &e.callW)
	e.ctl.leaveCall(wrote)
}

// trimCallBuffers drops a huge reply's or argument's buffer once it has
// been used, rather than keep it for the next call.
func (e *Engine) trimCallBuffers() {
	if cap(e.callW.B) > 1<<20 {
		e.callW.B = nil
	}
	if cap(e.argBuf) > 1<<20 {
		e.argBuf = nil
	}
}

// scriptArgs converts the Lua arguments into e.argv
// (script_lua.c:luaArgsToRedisArgv): strings as they are, numbers with
// "%.17g" (so 7000.0 is "7000"), anything else is an error.
func (e *Engine) scriptArgs(L *lua.LState) string {
	n := L.GetTop()
	if n == 0 {
		return "Please specify at least one argument for this redis lib call"
	}
	buf := e.argBuf[:0]
	offs := e.offs[:0]
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, v...)
		case lua.LNumber:
			buf = resp.FormatDouble(buf, float64(v))
		default:
			e.argBuf, e.offs = buf, offs
			return "Lua redis lib command arguments must be strings or integers"
		}
		offs = append(offs, len(buf))
	}
	argv := e.argv[:0]
	start := 0
	for _, end := range offs {
		argv = append(argv, buf[start:end:end])
		start = end
	}
	e.argBuf, e.offs, e.argv = buf, offs, argv
	return ""
}

// luaSetResp is redis.setresp.
func (e *Engine) luaSetResp(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errTable(L, "redis.setresp() requires one argument."), 0)
	}
	var n float64
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		n = float64(v)
	case lua.LString:
		n, _ = lauxlib.Str2Number(string(v))
	}
	p := int(lauxlib.ToInteger(n))
	if p != 2 && p != 3 {
		L.Error(errTable(L, "RESP version must be 2 or 3."), 0)
	}
	e.run.resp = p
	return 0
}

// luaLog is redis.log.
func (e *Engine) luaLog(L *lua.LState) int {
	argc := L.GetTop()
	if argc < 2 {
		L.Error(errTable(L, "redis.log() requires two arguments or more."), 0)
	}
	var lvl float64
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		lvl = float64(v)
	case lua.LString:
		f, ok := lauxlib.Str2Number(string(v))
		if !ok {
			L.Error(errTable(L, "First argument must be a number (log level)."), 0)
		}
		lvl = f
	default:
		L.Error(errTable(L, "First argument must be a number (log level)."), 0)
	}
	level := int(lauxlib.ToInteger(lvl))
	if level < 0 || level > 3 {
		L.Error(errTable(L, "Invalid debug level."), 0)
	}
	if e.cfg.Log == nil {
		return 0
	}
	var b strings.Builder
	for j := 2; j <= argc; j++ {
		var s string
		switch v := L.Get(j).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = lauxlib.FormatNumber(float64(v))
		default:
			continue
		}
		if j != 2 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	e.cfg.Log(level, b.String())
	return 0
}

// luaSha1hex is redis.sha1hex: lua_tolstring of a non-string hashes "".
func luaSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errTable(L, "wrong number of arguments"), 0)
	}
	var b []byte
	switch v := L.Get(1).(type) {
	case lua.LString:
		b = []byte(v)
	case lua.LNumber:
		b = []byte(lauxlib.FormatNumber(float64(v)))
	}
	h := sha1Hex(b)
	L.Push(lua.LString(h[:]))
	return 1
}

// luaErrorReply is redis.error_reply: a bad argument gives back an error
// table rather than raising (luaRedisErrorReplyCommand).
func luaErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errTable(L, "wrong number or type of arguments"))
		return 1
	}
	text := string(s)
	if !strings.HasPrefix(text, "-") {
		text = "-" + text
	}
	L.Push(errTable(L, text))
	return 1
}

// luaStatusReply is redis.status_reply.
func luaStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

// luaSetRepl is redis.set_repl: minilock does not replicate, so only the
// argument checks remain.
func luaSetRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(errTable(L, "redis.set_repl() requires two arguments."), 0)
	}
	var f float64
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		f = float64(v)
	case lua.LString:
		f, _ = lauxlib.Str2Number(string(v))
	}
	if flags := int(lauxlib.ToInteger(f)); flags&^3 != 0 {
		L.Error(errTable(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."), 0)
	}
	return 0
}

// luaACLCheck is redis.acl_check_cmd: whether the script's user may run the
// command with these arguments.
func (e *Engine) luaACLCheck(L *lua.LState) int {
	if msg := e.scriptArgs(L); msg != "" {
		L.Error(errTable(L, msg), 0)
	}
	c, ok := e.run.host.(CommandChecker)
	if ok && !c.Known(e.argv) {
		L.Error(errTable(L, "Invalid command passed to redis.acl_check_cmd()"), 0)
	}
	L.Push(lua.LBool(!ok || c.Permitted(e.argv)))
	return 1
}
