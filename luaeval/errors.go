package luaeval

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"

	"github.com/minilock/minilock/resp"
)

// scriptError is what the run's error handler makes of an error: the reply
// text (starting with its code) and where it happened. It travels as the
// Value of an LUserData so no Lua table is built for it.
type scriptError struct {
	msg    string // "ERR user_script:1: boom", "WRONGTYPE ...", ...
	source string // "@user_script"
	line   int
	hasPos bool
}

// errHandler is the run's message handler, Redis 7.0's
// __redis__err__handler (eval.c:scriptingInit) written in Go: it records the
// position of the function that raised the error, or of its caller when
// that is a Go function, and turns a non-table error into "ERR <text>".
func (sb *sandbox) errHandler(L *lua.LState) int {
	L.Push(sb.describeError(L, L.Get(1), 1))
	return 1
}

// describeError is errHandler's work for an error raised by the function at
// level (0 when the caller is not a message handler, see runScript).
func (sb *sandbox) describeError(L *lua.LState, obj lua.LValue, level int) *lua.LUserData {
	se := &scriptError{}
	if level == 0 {
		obj = goArgError(L, obj)
	}
	obj = sb.nameVariables(L, obj, level)
	if dbg, ok := frameInfo(L, level); ok {
		if dbg.What == "G" {
			dbg, ok = frameInfo(L, level+1)
		}
		if ok {
			se.hasPos = true
			if dbg.What == "G" {
				se.source, se.line = "=[C]", -1
			} else {
				se.source, se.line = sb.luaSource(dbg.Source), dbg.CurrentLine
			}
		}
	}
	switch {
	case sb.e.ctl.killed():
		se.msg = killMessage(sb.e.ctl.reason.Load())
	default:
		se.msg = errorText(obj)
	}
	ud := L.NewUserData()
	ud.Value = se
	return ud
}

// reBadArgNil matches gopher-lua's luaL_typerror text, which says "got nil"
// where Lua 5.1 says "got no value" for a missing argument.
var reBadArgNil = regexp.MustCompile(`bad argument #(\d+) to '?[^ ]+'? \([^()]* expected, got nil\)$`)

// reArgErrorAt matches luaL_argerror's text with the position gopher-lua
// puts before it (the name is quoted or not yet, see translateRuntime).
var reArgErrorAt = regexp.MustCompile(`^(?:[^ ]+:\d+: )?bad argument #(\d+) to '?[^' ]*'? \(`)

// goArgError rewrites gopher-lua's bad-argument text for the Go function
// that raised the error (level 0) into Lua 5.1's:
//   - "got nil" becomes "got no value" when the function was given fewer
//     arguments than the one it names (its stack then holds its arguments
//     and the message raiseError pushed);
//   - when a Go function called it (pcall(string.sub), a builtin given to
//     string.gsub ...), Lua 5.1 knows neither a name ('?') nor a position
//     for it, where gopher-lua names it and takes the nearest Lua caller's
//     line.
func goArgError(L *lua.LState, obj lua.LValue) lua.LValue {
	s, ok := obj.(lua.LString)
	if !ok {
		return obj
	}
	if dbg, ok := frameInfo(L, 0); !ok || dbg.What != "G" || raisesThreadError(L) {
		return obj
	}
	text := string(s)
	if m := reBadArgNil.FindStringSubmatch(text); m != nil {
		if n, _ := strconv.Atoi(m[1]); n > L.GetTop()-1 {
			text = strings.TrimSuffix(text, "got nil)") + "got no value)"
		}
	}
	if m := reArgErrorAt.FindStringSubmatchIndex(text); m != nil {
		if dbg, ok := frameInfo(L, 1); ok && dbg.What == "G" {
			text = "bad argument #" + text[m[2]:m[3]] + " to '?' (" + text[m[1]:]
		}
	}
	return lua.LString(text)
}

// raisesThreadError reports whether the running Go function is a function
// coroutine.wrap made (the one Go closure over a thread): the error it
// raises is its coroutine's, translated where it was raised (coPanic), not
// an argument error of its own.
func raisesThreadError(L *lua.LState) bool {
	dbg, ok := L.GetStack(0)
	if !ok {
		return false
	}
	fn, err := L.GetInfo("f", dbg, lua.LNil)
	f, isFn := fn.(*lua.LFunction)
	if err != nil || !isFn || !f.IsG || len(f.Upvalues) == 0 {
		return false
	}
	_, ok = f.Upvalues[0].Value().(*lua.LState)
	return ok
}

// runScript calls the script (its only argument) and returns its result.
// exec runs it under a PCall without a message handler: an error raised in
// the script is recovered here, while the failing frame can still be
// inspected, and re-raised as the finished scriptError with a stack trace
// already set, so gopher-lua computes none.
//
// A message handler (errHandler) would do the same work, but gopher-lua
// calls it on top of the failing frames: after "stack overflow" there is no
// frame left for it, its call fails, and gopher-lua then builds a stack
// trace of all 20000 frames in O(frames^2) time (about a second of the
// owner goroutine per overflowing script).
func (sb *sandbox) runScript(L *lua.LState) int {
	seam.KeepUpvalues(L, true) // the script's pcalls close what they unwind
	defer func() {
		if r := recover(); r != nil {
			panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: sb.scriptFailure(L, r), StackTrace: "(recorded by runScript)"})
		}
	}()
	// Redis calls the script with lua_pcall: it runs one C boundary deep.
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	// A function (FCALL) is called with its KEYS and ARGV tables.
	L.Call(L.GetTop()-1, 1)
	return 1
}

// scriptFailure is the error a run ends with when r was raised in the
// script: described while the failing frames can still be inspected.
func (sb *sandbox) scriptFailure(L *lua.LState, r any) lua.LValue {
	seam.CloseUpvalues(L, 0) // the whole run is unwound
	var obj lua.LValue
	if ae, ok := r.(*lua.ApiError); ok {
		obj = ae.Object
	} else {
		obj = lua.LString(fmt.Sprint(r)) // as PCall reports a Go panic
	}
	sb.noteOverflow(L, obj)
	obj = handlerDepth(L, obj)
	return sb.describeError(L, obj, 0)
}

// call runs the script fn with args and returns its one result, or nil
// and the error it failed with (a scriptError's userdata). It is PCall of
// the runner, which runs the script with runScript, without the two
// nested calls: the runner's frame is pushed and not called
// (seam.EnterGo), and runScript's work and PCall's recovery are done here,
// in the same order, so the call stack, the C-call count, every error and
// its position are what they are under PCall. A state whose call stack
// cannot take that frame (the hooks off) calls the runner under PCall.
func (sb *sandbox) call(fn *lua.LFunction, args ...lua.LValue) (v, failure lua.LValue) {
	L := sb.L
	L.Push(sb.runner)
	entered := enterRunner && seam.EnterGo(L, sb.runner)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if !entered {
		perr := L.PCall(len(args)+1, 1, nil)
		defer L.SetTop(0)
		if perr != nil {
			if ae, ok := perr.(*lua.ApiError); ok {
				return nil, ae.Object
			}
			return nil, lua.LString(perr.Error())
		}
		return L.Get(-1), nil
	}
	oldPanic := L.Panic
	// PCall's: an error raised carries no stack trace (one of 20000
	// frames costs O(frames^2)).
	L.Panic = panicWithoutTraceback
	defer func() {
		if r := recover(); r != nil {
			lauxlib.LeaveC(L) // runScript's deferred LeaveC runs first
			v, failure = nil, sb.scriptFailure(L, r)
		}
		L.Panic = oldPanic
		seam.LeaveGo(L)
		L.SetTop(0)
	}()
	seam.KeepUpvalues(L, true) // the script's pcalls close what they unwind
	lauxlib.EnterC(L)
	L.Call(len(args), 1)
	lauxlib.LeaveC(L)
	return L.Get(-1), nil
}

// enterRunner is off only in tests that compare sandbox.call with PCall of
// the runner (TestEnteredRunnerMatchesPCall).
var enterRunner = true

// panicWithoutTraceback is gopher-lua's own (state.go), which PCall sets
// as a state's Panic for the call.
func panicWithoutTraceback(L *lua.LState) {
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: L.Get(-1)})
}

// handlerDepth is what calling Redis's error handler makes of obj, an error
// on its way out of the script: luaG_errormsg calls the handler with
// luaD_call, one C call deeper than where obj was raised, and that call
// fails with "C stack overflow" when it is the 200th (the position is the
// raising function's, when it is a Lua function), or with "error in error
// handling" past LUAI_MAXCCALLS + 1/8. The handler then describes that
// error instead.
func handlerDepth(L *lua.LState, obj lua.LValue) lua.LValue {
	c := lauxlib.Of(L).CCalls(L)
	if !c.Raising {
		return obj
	}
	c.Raising = false
	switch at := c.RaisedAt + 1; {
	case at == lauxlib.MaxCCalls:
		return lua.LString(c.RaisedWhere + "C stack overflow")
	case at >= lauxlib.MaxCCalls+lauxlib.MaxCCalls>>3:
		return lua.LString("error in error handling")
	}
	return obj
}

// nameVariables rewrites a type error raised by the Lua function at level
// into Lua 5.1's wording with the variable's name (see varinfo.go).
func (sb *sandbox) nameVariables(L *lua.LState, obj lua.LValue, level int) lua.LValue {
	s, ok := obj.(lua.LString)
	if !ok || !strings.Contains(string(s), "attempt to") && !strings.Contains(string(s), "cannot perform") &&
		!strings.Contains(string(s), "__unm undefined") && !strings.Contains(string(s), "__len undefined") {
		return obj
	}
	dbg, ok := L.GetStack(level)
	if !ok {
		return obj
	}
	fn, err := L.GetInfo("Slf", dbg, lua.LNil)
	if err != nil {
		return obj
	}
	f, _ := fn.(*lua.LFunction)
	if f == nil || f.IsG {
		return obj
	}
	if m, ok := sb.varInfoMessage(L, dbg, f, string(s), level); ok {
		return lua.LString(m)
	}
	return obj
}

// pcallRun calls its first argument with the rest, for the script's own
// pcall, and gives an error Lua 5.1's wording while the failing frame can
// still be inspected (as runScript does for the whole script, and for the
// same reason: no message handler to call on top of a full stack). A Go
// panic is passed on untouched: the script's pcall does not catch it.
func (sb *sandbox) pcallRun(L *lua.LState) int {
	base := seam.FrameBase(L)
	seam.KeepUpvalues(L, true)
	defer func() {
		if r := recover(); r != nil {
			// Only the frames this call unwinds lose their locals
			// (luaD_pcall's luaF_close): see seam.KeepUpvalues.
			seam.CloseUpvalues(L, base)
			ae, ok := r.(*lua.ApiError)
			if !ok {
				panic(r)
			}
			sb.noteOverflow(L, ae.Object)
			obj := sb.nameVariables(L, goArgError(L, ae.Object), 0)
			if s, ok := obj.(lua.LString); ok {
				obj = lua.LString(translateRuntime(string(s)))
			}
			panic(&lua.ApiError{Type: ae.Type, Object: obj, StackTrace: "(recorded by pcallRun)"})
		}
	}()
	// The protected call is a C boundary (lua_pcall's luaD_call): the
	// 200th nested one fails inside it, so the pcall at that level catches
	// "C stack overflow".
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	// This frame is one Lua 5.1 does not have: a coroutine's call limit
	// does not count it (seam.ReserveCall).
	c := lauxlib.Of(L).CCalls(L)
	c.Hidden++
	defer func() { c.Hidden-- }()
	L.Call(L.GetTop()-1, lua.MultRet)
	return L.GetTop()
}

// noteOverflow widens thread L's call limit after its first call-stack
// overflow, as luaD_pcall's restore_stack_limit leaves Lua 5.1's call-info
// array at LUAI_MAXCALLS (see luaFreshCalls): luaMaxCalls for the main
// thread, coMaxCalls for a coroutine (each has an array of its own). obj
// is the error as gopher-lua raised it: its own data-stack overflow says
// "registry".
func (sb *sandbox) noteOverflow(L *lua.LState, obj lua.LValue) {
	s, ok := obj.(lua.LString)
	if !ok || !strings.HasSuffix(string(s), "stack overflow") || strings.HasSuffix(string(s), "C stack overflow") {
		return
	}
	if L != sb.L {
		seam.SetCallLimit(L, coMaxCalls)
		return
	}
	if !sb.overflowed {
		sb.overflowed = true
		seam.SetCallLimit(sb.L, luaMaxCalls)
	}
}

// errorText is the reply text for a raised Lua value.
func errorText(obj lua.LValue) string {
	if t, ok := obj.(*lua.LTable); ok {
		// luaExtractErrorInformation reads err with lua_isstring and
		// lua_tostring: a number is its "%.14g" text.
		switch v := t.RawGetString("err").(type) {
		case lua.LString:
			return string(v)
		case lua.LNumber:
			return lauxlib.FormatNumber(float64(v))
		}
		// Redis 7.0.15 crashes on an error table without err; we answer
		// with the table's text instead.
		return "ERR " + obj.String()
	}
	s := lauxlib.ToString(obj)
	if _, ok := obj.(lua.LString); ok {
		s = translateRuntime(s)
	}
	return "ERR " + s
}

func killMessage(reason int32) string {
	switch reason {
	case reasonMemory:
		return "ERR not enough memory"
	case reasonLoadTimeout:
		return "ERR FUNCTION LOAD timeout"
	}
	return "ERR Script killed by user with SCRIPT KILL..."
}

// frameInfo describes the function at level (0 = the running one).
func frameInfo(L *lua.LState, level int) (*lua.Debug, bool) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return nil, false
	}
	fn, err := L.GetInfo("Slf", dbg, lua.LNil)
	if err != nil {
		return nil, false
	}
	if f, ok := fn.(*lua.LFunction); ok && f.IsG {
		dbg.What = "G"
	}
	return dbg, true
}

// luaSource is Lua's ar.source for our chunk names: "@user_script" for the
// script itself.
func (sb *sandbox) luaSource(name string) string {
	if name == "user_script" || name == "user_function" {
		return "@" + name
	}
	if src, ok := sb.sources[name]; ok {
		return src
	}
	return name
}

// runError is the error reply for a failed run (script_lua.c:luaCallFunction):
// "<msg> script: <name>, on <source>:<line>." when the position is known;
// name is the script's SHA1 or the function's name.
func runError(name string, obj lua.LValue) error {
	var se *scriptError
	if ud, ok := obj.(*lua.LUserData); ok {
		se, _ = ud.Value.(*scriptError)
	}
	if se == nil {
		// The handler itself failed (no stack left to call it): recover
		// the position from the message.
		se = &scriptError{msg: errorText(obj)}
		if m := posRe.FindStringSubmatch(se.msg); m != nil {
			se.hasPos, se.source = true, "@"+m[1]
			se.line, _ = strconv.Atoi(m[2])
		}
	}
	text := se.msg
	if se.hasPos {
		text += " script: " + name + ", on " + se.source + ":" + strconv.Itoa(se.line) + "."
	}
	return &resp.Error{Code: sanitize(text)}
}

// scriptErrorAt is the error reply for msg raised on line 1 of the script
// (by a redis.call there), as runError words it.
func scriptErrorAt(sha *[40]byte, msg string) error {
	return &resp.Error{Code: sanitize(msg + " script: " + string(sha[:]) + ", on @user_script:1.")}
}

var posRe = regexp.MustCompile(`^ERR (user_script|user_function):(\d+): `)

// sanitize is what addReplyErrorFormat does to a message: trailing CR/LF
// are dropped (resp.Writer turns the others into spaces).
func sanitize(s string) string { return strings.TrimRight(s, "\r\n") }

// Translations of gopher-lua's runtime messages into Lua 5.1's (ldebug.c).
// Variable names ("local 'x'") are not recovered: gopher-lua does not keep
// what Lua's getobjname needs, so Lua's "attempt to index local 'x' (a nil
// value)" reads "attempt to index a nil value" here.
var (
	// "(for generator)" is the one function name with a space (a
	// generic for's iterator, named after its local).
	reBadArg  = regexp.MustCompile(`bad argument #(\d+) to ([^' ]+|\(for generator\)) \(`)
	reArith   = regexp.MustCompile(`cannot perform (?:add|sub|mul|div|mod|pow|unm) operation between (\w+) and (\w+)`)
	reConcat  = regexp.MustCompile(`cannot perform concat operation between (\w+) and (\w+)`)
	reIndex   = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '.*'$`)
	reCompare = regexp.MustCompile(`attempt to compare (\w+) with (\w+)`)
	rePattern = regexp.MustCompile(`unexpected EOS at \d+$`)
)

var forStatement = strings.NewReplacer(
	"for statement init must be a number", "'for' initial value must be a number",
	"for statement limit must be a number", "'for' limit must be a number",
	"for statement step must be a number", "'for' step must be a number")

func translateRuntime(s string) string {
	// gopher-lua's numeric for words its checks its own way (lvm.c's
	// OP_FORPREP: "'for' initial value must be a number" ...).
	if i := strings.Index(s, "for statement "); i >= 0 {
		s = s[:i] + forStatement.Replace(s[i:])
	}
	// gopher-lua's pattern matcher (pm) words a few errors its own way.
	if strings.HasSuffix(s, "unfinished capture at EOS") {
		s = strings.TrimSuffix(s, " at EOS")
	} else if m := rePattern.FindStringIndex(s); m != nil {
		s = s[:m[0]] + "malformed pattern (missing ']')"
	}
	if !strings.Contains(s, "attempt to") && !strings.Contains(s, "cannot perform") && !strings.Contains(s, "bad argument") &&
		!strings.Contains(s, "registry overflow") &&
		!strings.Contains(s, "__unm undefined") && !strings.Contains(s, "__len undefined") {
		return s
	}
	s = reBadArg.ReplaceAllString(s, "bad argument #$1 to '$2' (")
	s = strings.Replace(s, "attempt to call a non-function object", "attempt to call a nil value", 1)
	s = strings.Replace(s, "registry overflow", "stack overflow", 1)
	s = strings.Replace(s, "__unm undefined", "attempt to perform arithmetic on a table value", 1)
	// gopher-lua raises "__len undefined" for # of anything but a string or
	// a table; the operand's type is lost here (varInfoMessage knows it).
	s = strings.Replace(s, "__len undefined", "attempt to get length of a nil value", 1)
	if m := reArith.FindStringSubmatchIndex(s); m != nil {
		t1, t2 := s[m[2]:m[3]], s[m[4]:m[5]]
		t := t1
		if t1 == "number" {
			t = t2
		}
		s = s[:m[0]] + "attempt to perform arithmetic on a " + t + " value" + s[m[1]:]
	}
	if m := reConcat.FindStringSubmatchIndex(s); m != nil {
		t1, t2 := s[m[2]:m[3]], s[m[4]:m[5]]
		t := t1
		if t1 == "string" || t1 == "number" {
			t = t2
		}
		s = s[:m[0]] + "attempt to concatenate a " + t + " value" + s[m[1]:]
	}
	if m := reIndex.FindStringSubmatchIndex(s); m != nil {
		s = s[:m[0]] + "attempt to index a " + s[m[2]:m[3]] + " value"
	}
	if m := reCompare.FindStringSubmatchIndex(s); m != nil {
		t1, t2 := s[m[2]:m[3]], s[m[4]:m[5]]
		if t1 == t2 {
			s = s[:m[0]] + "attempt to compare two " + t1 + " values" + s[m[1]:]
		}
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
