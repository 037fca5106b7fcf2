package luaeval

import (
	"bytes"
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/resp"
)

// compileChunk compiles Lua source to a prototype. name is the chunk's name
// as lua_load takes it ("@user_script", or loadstring's chunkname); opt
// says how deep in C calls the compile starts (loadstring) and how to stop
// it.
//
// luac, a port of Lua 5.1's compiler, does the work: errors read exactly as
// Redis's, and time and memory are linear in the source's size. When
// gopher-lua's internals are out of reach (seam disabled) luac still checks
// the source and its shape, and gopher-lua's own compiler builds the code.
func compileChunk(src []byte, name string, opt luac.Options) (*lua.FunctionProto, error) {
	proto, err := luac.Compile(src, name, opt)
	if errors.Is(err, luac.ErrNoHooks) {
		return compileGopherLua(src, name)
	}
	if err != nil {
		return nil, err
	}
	return proto, nil
}

// gopherError is a compile error gopher-lua reports in its own words,
// translated as well as possible.
type gopherError struct{ msg string }

func (e *gopherError) Error() string { return e.msg }

// compileGopherLua compiles with gopher-lua's parser and compiler, for
// sources luac has already accepted and found small enough
// (luac.FallbackLimits).
func compileGopherLua(src []byte, name string) (proto *lua.FunctionProto, err error) {
	chunk := luac.ChunkID(name, luac.MaxSrc) // in compile errors
	defer func() {
		// gopher-lua's compiler reports some errors by panicking.
		if r := recover(); r != nil {
			proto, err = nil, &gopherError{msg: chunk + ": " + strings.TrimSpace(anyString(r))}
		}
	}()
	stmts, err := parse.Parse(bytes.NewReader(src), chunk)
	if err != nil {
		return nil, translateParseError(err, chunk)
	}
	proto, err = lua.Compile(stmts, luac.ChunkID(name, luac.IDSize))
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, &gopherError{msg: chunk + ":" + itoa(ce.Line) + ": " + ce.Message}
		}
		return nil, &gopherError{msg: chunk + ": " + err.Error()}
	}
	// Lua 5.1 gives the main chunk no implicit 'arg' table; gopher-lua
	// would build one (a table and a map) on every run.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return proto, nil
}

func anyString(r any) string {
	if e, ok := r.(error); ok {
		return e.Error()
	}
	if s, ok := r.(string); ok {
		return s
	}
	return "compile error"
}

// translateParseError turns gopher-lua's parse error into Lua's form. Only
// reached when luac accepted what gopher-lua's parser refuses.
func translateParseError(err error, chunk string) error {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return &gopherError{msg: chunk + ": " + strings.TrimSpace(err.Error())}
	}
	near := pe.Token
	line := pe.Pos.Line
	if line == parse.EOF || near == "" {
		near = "<eof>"
	}
	msg := pe.Message
	if strings.HasPrefix(msg, "syntax error") || msg == "parse error" {
		msg = "unexpected symbol"
	}
	if line <= 0 {
		line = 1
	}
	return &gopherError{msg: chunk + ":" + itoa(line) + ": " + msg + " near '" + near + "'"}
}

// compileStopped reports whether err is not the source's fault but the
// compile's interrupt (Options.Interrupt's error: the script was stopped).
func compileStopped(err error) bool {
	if err == nil {
		return false
	}
	var le *luac.Error
	var ge *gopherError
	return !errors.As(err, &le) && !errors.As(err, &ge)
}

// loadOptions are the options of the compile loadstring makes: its syntax
// levels count from the C calls open (loadCallDepth), and it polls the
// script's budget as every Go loop a script controls does (SCRIPT KILL,
// SHUTDOWN NOSAVE, the memory watchdog stop it).
func (sb *sandbox) loadOptions(L *lua.LState) luac.Options {
	return luac.Options{
		CallDepth:      sb.loadCallDepth(L),
		Interrupt:      lauxlib.Of(L).Stopped,
		InterruptEvery: lauxlib.PollEvery,
	}
}

// loadCallDepth is Lua's count of open C calls (L->nCcalls) when a script
// calls loadstring: one for the script itself (Redis runs it with
// lua_pcall), and one for each Go function below loadstring on the stack
// that called back into Lua (pcall, xpcall, ...; pcall's helper
// pcallRunner is part of pcall). The compile's syntax levels count from
// there. (Lua also counts metamethod calls, which gopher-lua makes without
// a frame of their own; those are not seen.)
func (sb *sandbox) loadCallDepth(L *lua.LState) int {
	depth := 1
	for level := 1; level <= luac.MaxCCalls; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		fn, err := L.GetInfo("Sf", dbg, lua.LNil)
		if err == nil && dbg.What == "G" && fn != sb.pcallRunner {
			depth++
		}
	}
	return depth
}

// chunkID is lobject.c:luaO_chunkid for LUA_IDSIZE 60, how run-time errors
// name a chunk: "=name" as name, "@file" as file, anything else as
// [string "first line..."].
func chunkID(source string) string {
	return luac.ChunkID(source, luac.IDSize)
}

// compileMessage is the text loadstring returns for a compile error.
func compileMessage(err error) string { return err.Error() }

// compileError is the reply for a script that does not compile
// (eval.c:luaCreateFunction).
func compileError(err error) error {
	return &resp.Error{Code: sanitize("ERR Error compiling script (new function): " + err.Error())}
}
