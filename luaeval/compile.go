package luaeval

import (
	"bytes"
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/minilock/minilock/resp"
)

// syntaxError is a compile error with Lua 5.1's wording, position included
// ("user_script:1: '<eof>' expected near 'error'").
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// compileChunk compiles Lua source to a prototype. chunk is the name used in
// messages ("user_script", or luaO_chunkid's form for loadstring).
//
// The source is first checked by checkSyntax, a port of Lua 5.1's lexer and
// parser error paths, so syntax errors read exactly as Redis's and code Lua
// 5.1 rejects (goto, binary chunks) is rejected here too. gopher-lua's own
// parser then builds the code; if it still refuses the source its message is
// translated as well as possible.
func compileChunk(src []byte, chunk string) (proto *lua.FunctionProto, err error) {
	if err := checkSyntax(src, chunk); err != nil {
		return nil, err
	}
	defer func() {
		// gopher-lua's compiler reports some errors by panicking.
		if r := recover(); r != nil {
			proto, err = nil, &syntaxError{msg: chunk + ": " + strings.TrimSpace(anyString(r))}
		}
	}()
	stmts, err := parse.Parse(bytes.NewReader(src), chunk)
	if err != nil {
		return nil, translateParseError(err, chunk)
	}
	proto, err = lua.Compile(stmts, chunk)
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, &syntaxError{msg: chunk + ":" + itoa(ce.Line) + ": " + ce.Message}
		}
		return nil, &syntaxError{msg: chunk + ": " + err.Error()}
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
// reached when checkSyntax accepted what gopher-lua refuses.
func translateParseError(err error, chunk string) error {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return &syntaxError{msg: chunk + ": " + strings.TrimSpace(err.Error())}
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
	return &syntaxError{msg: chunk + ":" + itoa(line) + ": " + msg + " near '" + near + "'"}
}

// compileMessage is the text loadstring returns for a compile error.
func compileMessage(err error) string { return err.Error() }

// compileError is the reply for a script that does not compile
// (eval.c:luaCreateFunction).
func compileError(err error) error {
	return &resp.Error{Code: sanitize("ERR Error compiling script (new function): " + err.Error())}
}
