package luaeval

import (
	"bytes"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// Redis 7.0 functions (functions.c, function_lua.c): libraries of Lua
// functions loaded with FUNCTION LOAD and run with FCALL / FCALL_RO.
//
// As in Redis, functions have a Lua state of their own (fsb), apart from
// EVAL's: SCRIPT FLUSH does not touch them, and a function sees the same
// read-only globals as a script but no KEYS or ARGV (it gets them as its
// two arguments). A library's code runs once, at load, with only
// redis.register_function, redis.log and the version constants visible;
// the closures it registers are kept, with their upvalues, until the
// library is deleted or replaced.

// LoadTimeout is how long a library's code may run at FUNCTION LOAD
// (functions.c:LOAD_TIMEOUT_MS).
const LoadTimeout = 500 * time.Millisecond

// Function is one registered function.
type Function struct {
	Name  string
	Desc  *string // nil when none was given
	Flags int     // script flags (FlagNoWrites ...)
	Lib   *Library
	fn    *lua.LFunction
	// argsStay: fn cannot keep its KEYS and ARGV tables past a call
	// (argsStay), so FCALL reuses them (argTables).
	argsStay bool
}

// Library is a loaded library.
type Library struct {
	Name  string
	Code  string // as given to FUNCTION LOAD, shebang included
	Funcs map[string]*Function
}

// SortedFuncs returns the library's functions by name.
func (l *Library) SortedFuncs() []*Function {
	out := make([]*Function, 0, len(l.Funcs))
	for _, f := range l.Funcs {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *Function) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// eachSorted calls f with the library's functions by name until f returns
// false. A library of one function, the usual, costs no slice and no sort
// (a FUNCTION RESTORE of 10,000 libraries sorted 40,000 one-element
// slices).
func (l *Library) eachSorted(f func(*Function) bool) {
	if len(l.Funcs) == 1 {
		for _, fn := range l.Funcs {
			f(fn)
		}
		return
	}
	for _, fn := range l.SortedFuncs() {
		if !f(fn) {
			return
		}
	}
}

// Exported script flags, in Redis's order (script.c:scripts_flags_def).
const (
	FlagNoWrites       = flagNoWrites
	FlagAllowOOM       = flagAllowOOM
	FlagAllowStale     = flagAllowStale
	FlagNoCluster      = flagNoCluster
	FlagAllowCrossSlot = flagAllowCrossSlot
)

// FlagNames lists the flag names in Redis's order, for FUNCTION LIST.
func FlagNames(flags int) []string {
	var out []string
	for _, d := range shebangFlags {
		if flags&d.flag != 0 {
			out = append(out, d.name)
		}
	}
	return out
}

// libSet is a set of libraries and the index of their functions by
// case-folded name (functions.c:functionsLibCtx).
type libSet struct {
	libs  map[string]*Library
	funcs map[string]*Function // lower-cased name
	nfunc int
}

func newLibSet() *libSet {
	return &libSet{libs: map[string]*Library{}, funcs: map[string]*Function{}}
}

// link adds l. Two of its functions may differ only in letter case (a
// library's own names are case-sensitive, the index is not): then one of
// them is found by FCALL, the first in name order here (Redis: the first
// in its dictionary's order).
func (s *libSet) link(l *Library) {
	s.libs[l.Name] = l
	l.eachSorted(func(f *Function) bool {
		k := strings.ToLower(f.Name)
		if s.funcs[k] == nil {
			s.funcs[k] = f
		}
		return true
	})
	s.nfunc += len(l.Funcs)
}

func (s *libSet) unlink(l *Library) {
	delete(s.libs, l.Name)
	for _, f := range l.Funcs {
		k := strings.ToLower(f.Name)
		if g := s.funcs[k]; g != nil && g.Lib == l {
			delete(s.funcs, k)
		}
	}
	s.nfunc -= len(l.Funcs)
}

// functions is the engine's function state. Owner goroutine, except the
// counters and running, which FUNCTION STATS reads while a function is
// busy.
type functions struct {
	sb      *sandbox // made by the first FUNCTION LOAD
	loadEnv *lua.LTable
	set     *libSet
	loading *Library // the library being loaded (register_function's target)
	// nlib and nfunc mirror set's sizes for FUNCTION STATS off the owner.
	nlib, nfunc atomic.Int64
	running     atomic.Pointer[RunningFunction]
	// readers counts RunningFunction calls in progress, and spare is the
	// record FCALL fills (see runningRecord).
	readers atomic.Int32
	spare   *RunningFunction
	// argStrs are the Lua strings of the last call's KEYS then ARGV
	// (see argTable).
	argStrs []lua.LValue
	// keys and argv are the tables the last call of a function that
	// cannot keep them was given (see argTables).
	keys, argv *lua.LTable
}

// maxArgStrs and maxArgStrBytes bound what argStrs keeps between calls.
const (
	maxArgStrs     = 16
	maxArgStrBytes = 4096
)

// RunningFunction describes the function being run, for FUNCTION STATS.
type RunningFunction struct {
	Name  string
	Argv  [][]byte // the FCALL command; read only
	Start time.Time
}

func (fs *functions) counts() {
	fs.nlib.Store(int64(len(fs.set.libs)))
	fs.nfunc.Store(int64(fs.set.nfunc))
}

// funcSandbox returns the functions' Lua state, made on first use.
func (e *Engine) funcSandbox() *sandbox {
	fs := &e.fn
	if fs.sb != nil {
		return fs.sb
	}
	sb := newSandbox(e)
	// KEYS and ARGV are EVAL's globals only (script_lua.c:luaCallFunction).
	seam.RawSetString(sb.L, sb.gReal, "KEYS", lua.LNil)
	seam.RawSetString(sb.L, sb.gReal, "ARGV", lua.LNil)
	// So are the error handler global and redis.breakpoint, redis.debug
	// and redis.replicate_commands (eval.c:scriptingInit's additions;
	// function_lua.c keeps its handler in the registry): in a function
	// they are nil, and the handler a nonexistent global.
	seam.RawSetString(sb.L, sb.gReal, "__redis__err__handler", lua.LNil)
	if rp, ok := sb.gReal.RawGetString("redis").(*lua.LTable); ok {
		for _, k := range []string{"breakpoint", "debug", "replicate_commands"} {
			seam.RawSetString(sb.L, sb.realTable(rp), k, lua.LNil)
		}
	}
	L := sb.L
	// What a library's code sees while it loads: redis with
	// register_function, log and the version, nothing else; anything
	// else is a "nonexistent global variable" (luaEngineInitEngine).
	errMeta := L.CreateTable(0, 1)
	errMeta.RawSetString("__index", L.NewFunction(luaNonexistentGlobal))
	rt := L.CreateTable(0, 8)
	rt.RawSetString("register_function", L.NewFunction(e.luaRegisterFunction))
	rt.RawSetString("log", L.NewFunction(e.luaLog))
	for k, v := range map[string]float64{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		rt.RawSetString(k, lua.LNumber(v))
	}
	rt.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	rt.Metatable = errMeta
	env := L.CreateTable(0, 1)
	env.RawSetString("redis", sb.proxy(rt))
	env.Metatable = errMeta
	fs.loadEnv = env
	fs.sb = sb
	return sb
}

// setEnv points the functions' globals at the load environment (load) or
// the run-time globals, as luaEngineCreate swaps the globals' __index.
func (sb *sandbox) setEnv(t *lua.LTable) {
	if mt, ok := sb.gProxy.Metatable.(*lua.LTable); ok {
		mt.RawSetString("__index", t)
	}
}

// FunctionCount reports how many libraries and functions are loaded (any
// goroutine).
func (e *Engine) FunctionCount() (libs, funcs int64) {
	return e.fn.nlib.Load(), e.fn.nfunc.Load()
}

// RunningFunction returns the function running now, or nil (any
// goroutine).
func (e *Engine) RunningFunction() *RunningFunction {
	// A copy: FCALL fills its record again once no reader is counted
	// (runningRecord), and the caller keeps what it gets.
	e.fn.readers.Add(1)
	defer e.fn.readers.Add(-1)
	if r := e.fn.running.Load(); r != nil {
		c := *r
		return &c
	}
	return nil
}

// runningRecord returns the record FCALL publishes in running for FUNCTION
// STATS: the last call's, unless endRunning let it go. Owner goroutine.
func (fs *functions) runningRecord() *RunningFunction {
	if fs.spare == nil {
		fs.spare = new(RunningFunction)
	}
	return fs.spare
}

// endRunning unpublishes the record at the end of a call. The next call
// may fill the same record again only if no reader can be reading it: a
// reader counts itself before it loads running, so one that got the
// record loaded it before the nil stored here, hence counted itself
// before the check below, which then lets the record go to it (the next
// call makes another); one that counts itself after the check finds nil,
// or a record the next call filled before publishing it. With no reader,
// the record drops its arguments (the caller's buffers) until then.
func (fs *functions) endRunning() {
	fs.running.Store(nil)
	if fs.spare == nil {
		return
	}
	if fs.readers.Load() == 0 {
		*fs.spare = RunningFunction{}
	} else {
		fs.spare = nil
	}
}

// Libraries returns the loaded libraries by name. Owner goroutine.
func (e *Engine) Libraries() []*Library { return e.LibrariesWhere(nil) }

// LibrariesWhere returns the libraries keep keeps (all for a nil keep),
// sorted by name. It filters before it sorts: FUNCTION LIST LIBRARYNAME
// over 10,000 libraries sorted them all to keep one, 2.6 times Redis's
// time (docs/cost-audit.md).
func (e *Engine) LibrariesWhere(keep func(*Library) bool) []*Library {
	return e.libSet().sorted(keep)
}

func (s *libSet) sorted(keep func(*Library) bool) []*Library {
	n := len(s.libs)
	if keep != nil {
		n = 0
	}
	out := make([]*Library, 0, n)
	for _, l := range s.libs {
		if keep == nil || keep(l) {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b *Library) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (e *Engine) libSet() *libSet {
	if e.fn.set == nil {
		e.fn.set = newLibSet()
	}
	return e.fn.set
}

// FunctionLoad is FUNCTION LOAD [REPLACE]: it loads the library code and
// returns its name.
func (e *Engine) FunctionLoad(code []byte, replace bool) (string, error) {
	s := e.libSet()
	l, err := e.createLibrary(code, replace, s)
	if err != nil {
		return "", err
	}
	e.fn.counts()
	return l.Name, nil
}

// FunctionDelete is FUNCTION DELETE.
func (e *Engine) FunctionDelete(name []byte) error {
	s := e.libSet()
	l := s.libs[string(name)]
	if l == nil {
		return resp.NewError("Library not found")
	}
	s.unlink(l)
	e.fn.counts()
	return nil
}

// FunctionFlush is FUNCTION FLUSH: every library goes.
func (e *Engine) FunctionFlush() {
	e.fn.set = newLibSet()
	e.fn.counts()
}

var errLibName = resp.NewError("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")

// validName is functions.c:functionsVerifyName.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// libMeta is functions.c:functionExtractLibMetaData: the "#!<engine>
// name=<lib>" line. body is the code from the line's line feed on (so line
// numbers count the shebang line).
func libMeta(code []byte) (engine, name string, body []byte, err error) {
	if !bytes.HasPrefix(code, []byte("#!")) {
		return "", "", nil, resp.NewError("Missing library metadata")
	}
	// The C string ends at the first NUL: a line feed past it is not seen.
	search := code
	if i := bytes.IndexByte(code, 0); i >= 0 {
		search = code[:i]
	}
	nl := bytes.IndexByte(search, '\n')
	if nl < 0 {
		return "", "", nil, resp.NewError("Invalid library metadata")
	}
	parts, ok := redisstr.Split(string(code[:nl]))
	if !ok || len(parts) == 0 {
		return "", "", nil, resp.NewError("Invalid library metadata")
	}
	engine = parts[0][min(2, len(parts[0])):]
	haveName := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if haveName {
				return "", "", nil, resp.NewError("Invalid metadata value, name argument was given multiple times")
			}
			name, haveName = p[5:], true
			continue
		}
		return "", "", nil, resp.NewError("Invalid metadata value given: " + redisstr.CString([]byte(p)))
	}
	if !haveName {
		return "", "", nil, resp.NewError("Library name was not given")
	}
	return engine, name, code[nl:], nil
}

// createLibrary is functions.c:functionsCreateWithLibraryCtx: it compiles
// and runs code, and links the library it registers into s.
func (e *Engine) createLibrary(code []byte, replace bool, s *libSet) (*Library, error) {
	engine, name, body, err := libMeta(code)
	if err != nil {
		return nil, err
	}
	if !validName(name) {
		return nil, errLibName
	}
	if !strings.EqualFold(engine, "lua") {
		return nil, resp.NewError("Engine '" + redisstr.CString([]byte(engine)) + "' not found")
	}
	old := s.libs[name]
	if old != nil && !replace {
		return nil, resp.NewError("Library '" + name + "' already exists")
	}
	if old != nil {
		s.unlink(old)
	}
	l, err := e.runLibrary(name, code, body)
	if err == nil && len(l.Funcs) == 0 {
		err = resp.NewError("No functions registered")
	}
	if err == nil {
		l.eachSorted(func(f *Function) bool {
			if s.funcs[strings.ToLower(f.Name)] != nil {
				err = resp.NewError("Function " + f.Name + " already exists")
				return false
			}
			return true
		})
	}
	if err != nil {
		if old != nil {
			s.link(old)
		}
		return nil, err
	}
	s.link(l)
	return l, nil
}

// runLibrary compiles body and runs it in the load environment, the run
// within LoadTimeout (function_lua.c:luaEngineCreate). Compiling and
// running count as running a script: the memory watchdog and BUSY apply,
// and SHUTDOWN NOSAVE stops either.
func (e *Engine) runLibrary(name string, code, body []byte) (lib *Library, err error) {
	sb := e.funcSandbox()
	L := sb.L
	e.ctl.begin(false)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		sb.setEnv(sb.gReal)
		e.fn.loading = nil
		if r := recover(); r != nil {
			e.rebuildFunctions(anyString(r))
			lib, err = nil, resp.NewError("Error registering functions: the scripting engine was reset")
		}
		e.releaseMemory() // before the end, as exec does
		e.ctl.end()
	}()
	proto, cerr := compileChunk(body, "@user_function", luac.Options{Interrupt: e.ctl.interrupted})
	if e.ctl.killed() {
		return nil, resp.NewError("Error compiling function: " + killMessage(e.ctl.reason.Load())[len("ERR "):])
	}
	if cerr != nil {
		return nil, resp.NewError("Error compiling function: " + cerr.Error())
	}
	// The time limit is the run's, not the compile's (luaEngineCreate sets
	// its hook after luaL_loadbuffer).
	gen := e.ctl.gen.Load()
	timer = time.AfterFunc(LoadTimeout, func() { _ = e.ctl.stopRun(true, reasonLoadTimeout, gen) })
	lib = &Library{Name: name, Code: string(code), Funcs: map[string]*Function{}}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = sb.gProxy
	sb.setEnv(e.fn.loadEnv)
	e.fn.loading = lib
	sb.cjson.Reset()
	L.Push(sb.runner)
	L.Push(fn)
	perr := L.PCall(1, 1, nil)
	L.SetTop(0)
	if perr != nil {
		var obj lua.LValue = lua.LString(perr.Error())
		if ae, ok := perr.(*lua.ApiError); ok {
			obj = ae.Object
		}
		msg := ""
		if ud, ok := obj.(*lua.LUserData); ok {
			if se, ok := ud.Value.(*scriptError); ok {
				msg = se.msg
			}
		}
		if msg == "" {
			msg = errorText(obj)
		}
		return nil, &resp.Error{Code: sanitize("ERR Error registering functions: " + msg)}
	}
	for _, f := range lib.Funcs {
		f.fn = sb.specialized(f.fn)
		f.argsStay = !f.fn.IsG && argsStay(f.fn.Proto)
	}
	return lib, nil
}

// specialized is what FCALL runs for fn, a registered function: a closure
// of fn's prototype specialized as EVAL's scripts are (specialize: the
// libraries and builtins loaded as constants, two hash lookups each
// before), sharing fn's upvalues and environment. The library's own code
// keeps fn, which is what it sees while it loads: then the globals are
// the load environment, where `string` and the rest do not exist, and a
// helper called at load must still fail as in Redis. After the load the
// function's globals are the run-time ones, read-only, so the constants
// are what every lookup would find.
func (sb *sandbox) specialized(fn *lua.LFunction) *lua.LFunction {
	if fn.IsG {
		return fn
	}
	nf := sb.L.NewFunctionFromProto(sb.specialize(fn.Proto))
	nf.Env, nf.Upvalues = fn.Env, fn.Upvalues
	return nf
}

// rebuildFunctions replaces the functions' Lua state after a Go panic in
// gopher-lua; the loaded libraries, whose closures belonged to it, go too.
func (e *Engine) rebuildFunctions(why string) {
	e.log(3, "Lua functions engine reset after an internal error: "+why)
	if e.fn.sb != nil {
		e.fn.sb.L.Close()
	}
	e.fn.sb = nil
	e.fn.keys, e.fn.argv = nil, nil
	e.fn.set = newLibSet()
	e.fn.counts()
}

// luaRegisterFunction is redis.register_function
// (function_lua.c:luaRegisterFunction).
func (e *Engine) luaRegisterFunction(L *lua.LState) int {
	lib := e.fn.loading
	if lib == nil {
		L.Error(errTable(L, "redis.register_function can only be called on FUNCTION LOAD command"), 0)
	}
	f, msg := readRegisterArgs(L)
	if msg == "" {
		switch {
		case !validName(f.Name):
			msg = errLibName.Msg
		case lib.Funcs[f.Name] != nil:
			msg = "Function already exists in the library"
		}
	}
	if msg != "" {
		L.Error(errTable(L, msg), 0)
	}
	f.Lib = lib
	lib.Funcs[f.Name] = f
	return 0
}

// luaStringArg is luaGetStringSds: a string or a number, as text.
func luaStringArg(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return lua.LVAsString(v), true
	}
	return "", false
}

func readRegisterArgs(L *lua.LState) (*Function, string) {
	switch L.GetTop() {
	case 1:
		return readNamedArgs(L)
	case 2:
		name, ok := luaStringArg(L.Get(1))
		if !ok {
			return nil, "first argument to redis.register_function must be a string"
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return nil, "second argument to redis.register_function must be a function"
		}
		return &Function{Name: name, fn: fn}, ""
	}
	return nil, "wrong number of arguments to redis.register_function"
}

func readNamedArgs(L *lua.LState) (*Function, string) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return nil, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
	}
	f := &Function{}
	haveName := false
	var msg string
	// In lua_next's order (seam.Next: Lua 5.1's), which decides the error
	// when several arguments are wrong.
	for k, v, ok := seam.Next(t, lua.LNil); ok && k != lua.LNil && msg == ""; k, v, ok = seam.Next(t, k) {
		key, ok := luaStringArg(k)
		if !ok {
			msg = "named argument key given to redis.register_function is not a string"
			break
		}
		switch {
		case strings.EqualFold(key, "function_name"):
			if f.Name, ok = luaStringArg(v); !ok {
				msg = "function_name argument given to redis.register_function must be a string"
			}
			haveName = true
		case strings.EqualFold(key, "description"):
			d, ok := luaStringArg(v)
			if !ok {
				msg = "description argument given to redis.register_function must be a string"
			}
			f.Desc = &d
		case strings.EqualFold(key, "callback"):
			if f.fn, ok = v.(*lua.LFunction); !ok {
				msg = "callback argument given to redis.register_function must be a function"
			}
		case strings.EqualFold(key, "flags"):
			ft, ok := v.(*lua.LTable)
			if !ok {
				msg = "flags argument to redis.register_function must be a table representing function flags"
				break
			}
			if f.Flags, ok = readFlags(L, ft); !ok {
				msg = "unknown flag given"
			}
		default:
			msg = "unknown argument given to redis.register_function"
		}
	}
	switch {
	case msg != "":
		return nil, msg
	case !haveName:
		return nil, "redis.register_function must get a function name argument"
	case f.fn == nil:
		return nil, "redis.register_function must get a callback argument"
	}
	return f, ""
}

// readFlags is luaRegisterFunctionReadFlags: t[1], t[2] ... up to the
// first nil, each a flag name in any letter case.
func readFlags(L *lua.LState, t *lua.LTable) (int, bool) {
	flags := 0
	for i := 1; ; i++ {
		v := L.GetTable(t, lua.LNumber(i))
		if v == lua.LNil {
			return flags, true
		}
		s, ok := luaStringArg(v)
		if !ok {
			return 0, false
		}
		found := false
		for _, d := range shebangFlags {
			if strings.EqualFold(s, d.name) {
				flags |= d.flag
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
}

// LookupFunction finds a function by name in any letter case, or nil.
func (e *Engine) LookupFunction(name []byte) *Function {
	for _, c := range name {
		if c >= 'A' && c <= 'Z' {
			return e.libSet().funcs[strings.ToLower(string(name))]
		}
	}
	return e.libSet().funcs[string(name)] // no copy for the lookup
}

var errBadNumKeys = resp.NewError("Bad number of keys provided")

// FCall runs FCALL (FCALL_RO when readOnly). argv is the whole command,
// its name included: FCALL function numkeys [key ...] [arg ...]. It
// appends the reply to w and returns nil, or returns the error to reply
// with and writes nothing.
func (e *Engine) FCall(w *resp.Writer, argv [][]byte, readOnly bool, h Host) (err error) {
	f := e.LookupFunction(argv[1])
	if f == nil {
		return resp.NewError("Function not found")
	}
	n, ok := redisstr.ParseInt(argv[2])
	if !ok {
		return errBadNumKeys
	}
	if n > int64(len(argv)-3) {
		return resp.NewError("Number of keys can't be greater than number of args")
	}
	if n < 0 {
		return resp.NewError("Number of keys can't be negative")
	}
	if readOnly && f.Flags&flagNoWrites == 0 {
		return errROWithWriteFlag
	}
	keys, args := argv[3:3+n], argv[3+n:]
	sb := e.funcSandbox()
	L := sb.L
	kt, at := e.fn.argTables(L, f, keys, args)
	sb.cjson.Reset()
	sb.sources = nil
	e.interned = e.interned[:0]
	e.run = runState{host: h, readOnly: readOnly || f.Flags&flagNoWrites != 0, resp: 2, active: true}
	rf := e.fn.runningRecord()
	*rf = RunningFunction{Name: f.Name, Argv: argv, Start: monoNow()}
	e.fn.running.Store(rf)
	e.ctl.begin(true)
	defer func() {
		if r := recover(); r != nil {
			e.rebuildFunctions(anyString(r))
			err = resp.NewError("Error running script, the scripting engine was reset")
		}
		e.run = runState{}
		e.fn.endRunning()
		e.releaseMemory() // before the end, as exec does
		e.ctl.end()
	}()
	v, failure := sb.call(f.fn, kt, at)
	if failure != nil {
		return runError(f.Name, failure)
	}
	start := len(w.B)
	if !luaToReply(w, v, e.run.resp, 2, start+e.cfg.MaxReplyBytes) {
		w.B = append([]byte(nil), w.B[:start]...)
		return resp.NewError("not enough memory for the script's reply (limit " + itoa(e.cfg.MaxReplyBytes) + " bytes)")
	}
	return nil
}

// argTable is luaCreateArray: a fresh table of the strings. Made with the
// array part that filling an empty table one element at a time ends with
// (seam.ArraySize), so the layout is Lua's without its rehashes. The tables
// are new at every call, as Redis makes them (a function may keep one);
// their strings are the last call's when the bytes are the same (Lua
// strings are immutable values, so sharing one is invisible): a function
// called again and again with the same keys then boxes none. from is the
// first element's place among the call's KEYS and ARGV.
func (fs *functions) argTable(L *lua.LState, elems [][]byte, from int) *lua.LTable {
	t := seam.NewTable(L, seam.ArraySize(len(elems)), 0)
	for i, b := range elems {
		var v lua.LValue
		if j := from + i; j < len(fs.argStrs) {
			if s, ok := fs.argStrs[j].(lua.LString); ok && string(s) == string(b) {
				v = fs.argStrs[j] // the boxed value itself: re-boxing s would allocate
			} else {
				v = lua.LString(b)
				fs.argStrs[j] = argStr(v, len(b))
			}
		} else {
			v = lua.LString(b)
			if j == len(fs.argStrs) && j < maxArgStrs {
				fs.argStrs = append(fs.argStrs, argStr(v, len(b)))
			}
		}
		seam.RawSetInt(L, t, i+1, v)
	}
	return t
}

// monoBase is the time monoNow counts from.
var monoBase = time.Now()

// monoNow is time.Now for measuring durations: it reads the monotonic
// clock only (time.Since of a time that has one), half the cost of
// time.Now's two clock reads, which showed in every FCALL. Its wall
// clock reading is monoBase's moved on by as much.
func monoNow() time.Time { return monoBase.Add(time.Since(monoBase)) }

// argTables returns the KEYS and ARGV tables of a call of f: new ones, as
// Redis makes them, or, for a function that cannot keep them (argsStay),
// the last such call's, refilled as EVAL's are (refill): what it changed
// in them is undone, and a table whose layout it changed is replaced.
func (fs *functions) argTables(L *lua.LState, f *Function, keys, args [][]byte) (kt, at *lua.LTable) {
	if !f.argsStay || !reuseArgs || !keepable(keys) || !keepable(args) {
		return fs.argTable(L, keys, 0), fs.argTable(L, args, len(keys))
	}
	if fs.keys == nil || !refill(fs.keys, keys) {
		fs.keys = fs.argTable(L, keys, 0)
	}
	if fs.argv == nil || !refill(fs.argv, args) {
		fs.argv = fs.argTable(L, args, len(keys))
	}
	return fs.keys, fs.argv
}

// keepable reports whether the tables argTables keeps may hold elems past
// the call: a few strings, none long (what argStrs keeps).
func keepable(elems [][]byte) bool {
	if len(elems) > maxArgStrs {
		return false
	}
	for _, b := range elems {
		if len(b) > maxArgStrBytes {
			return false
		}
	}
	return true
}

// reuseArgs turns argTables' reuse off (tests compare both ways).
var reuseArgs = true

// argStr is what argStrs keeps of v, a string of n bytes: v, or nothing
// for a long one, which is not kept alive past its call.
func argStr(v lua.LValue, n int) lua.LValue {
	if n > maxArgStrBytes {
		return lua.LNil
	}
	return v
}

// KillFunction is FUNCTION KILL (any goroutine): as Kill, but it stops a
// function, and answers an EVAL script's BUSY error when a script runs.
func (e *Engine) KillFunction() error { return e.ctl.killKind(true) }

// ErrBusyFunction is the BUSY reply while a function runs past the busy
// threshold (server.c:shared.slowscripterr).
var ErrBusyFunction = &resp.Error{Code: "BUSY", Msg: "Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."}

// RunningIsFunction reports whether the run in progress is a function's
// (any goroutine).
func (e *Engine) RunningIsFunction() bool { return e.ctl.isFunc.Load() }

// FunctionBytes estimates what the loaded libraries hold outside the Lua
// heap (INFO's used_memory_functions: functions.c's structures, names,
// descriptions and code). Owner goroutine.
func (e *Engine) FunctionBytes() int64 {
	const libEntry, fnEntry = 96, 112
	var n int64
	for _, l := range e.libSet().libs {
		n += libEntry + int64(len(l.Name)+len(l.Code))
		for _, f := range l.Funcs {
			n += fnEntry + int64(len(f.Name))
			if f.Desc != nil {
				n += int64(len(*f.Desc))
			}
		}
	}
	return n
}

// argsStay reports whether a function of prototype p can keep neither of
// its first two arguments (FCALL's KEYS and ARGV tables) past its call:
// each is read only as the table of an index, a `#`, a truth test or the
// target of a store into it, so it never reaches another register, an
// upvalue, a global, a call, a return, a metamethod (arithmetic,
// comparison, concatenation) or a closure. Then FCALL may give it the
// same two tables, refilled, call after call (argTables) instead of new
// ones: no script can tell. Anything else, or anything this check does
// not know, counts as keeping them.
func argsStay(p *lua.FunctionProto) bool {
	if p.IsVarArg != 0 && p.NumParameters < 2 {
		return false // the tables are in '...'
	}
	params := min(int(p.NumParameters), 2)
	isParam := func(r int) bool { return r < params }
	rk := func(x int) bool { return x&0x100 == 0 && isParam(x) } // a register operand holding a parameter
	// from reports whether the registers from r on (to the stack top)
	// include a parameter.
	from := func(r int) bool { return isParam(r) }
	span := func(a, n int) bool { // registers [a, a+n)
		return n > 0 && isParam(a)
	}
	for _, in := range p.Code {
		a, b, c := seam.OpA(in), seam.OpB(in), seam.OpC(in)
		var keeps bool
		switch seam.OpCode(in) {
		case lua.OP_GETTABLE:
			keeps = rk(c) // as a key; as the table (b) it stays
		case lua.OP_GETTABLEKS, lua.OP_LEN, lua.OP_TEST:
			// The table indexed, measured or tested: no metamethod
			// (the tables have no metatable unless a call gave them
			// one, and a call keeps them).
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			keeps = rk(b) || rk(c) // stored into (a) it stays
		case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_UNM, lua.OP_NOT, lua.OP_TESTSET:
			keeps = isParam(b)
		case lua.OP_SELF:
			keeps = isParam(b) || rk(c)
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW,
			lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			keeps = rk(b) || rk(c)
		case lua.OP_CONCAT:
			keeps = isParam(b) || isParam(c) || b < params && c >= params
		case lua.OP_CALL, lua.OP_TAILCALL:
			keeps = b == 0 && from(a) || span(a, b)
		case lua.OP_RETURN:
			keeps = b == 0 && from(a) || span(a, b-1)
		case lua.OP_SETLIST:
			keeps = isParam(a+1) || b == 0 && from(a+1) || span(a+1, b)
		case lua.OP_SETUPVAL, lua.OP_SETGLOBAL:
			keeps = isParam(a)
		case lua.OP_FORPREP, lua.OP_FORLOOP:
			keeps = span(a, 4)
		case lua.OP_TFORLOOP:
			keeps = span(a, 3)
		case lua.OP_JMP, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_LOADNIL, lua.OP_GETUPVAL,
			lua.OP_GETGLOBAL, lua.OP_NEWTABLE, lua.OP_CLOSURE, lua.OP_CLOSE, lua.OP_VARARG, lua.OP_NOP:
			// No register read (a CLOSURE's captures are the MOVE and
			// GETUPVAL words after it, checked as such).
		default:
			keeps = true
		}
		if keeps {
			return false
		}
	}
	return true
}
