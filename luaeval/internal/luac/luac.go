package luac

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// Options tunes one compile. The zero value compiles a script as EVAL does.
type Options struct {
	// CallDepth is Lua's L->nCcalls when the compile starts: 0 for a
	// script compiled by the server (EVAL, SCRIPT LOAD), 1 for loadstring
	// called from a script (Redis runs the script under lua_pcall), one
	// more for each C call in between (pcall(loadstring, s) is 2). The 200
	// syntax levels, and the limit on variables in one assignment, count
	// from there, as in Lua.
	CallDepth int

	// Interrupt, when set, is called every InterruptEvery tokens; an error
	// stops the compile, and Compile returns that error as it is.
	Interrupt func() error

	// InterruptEvery is how many tokens pass between two calls of
	// Interrupt; 0 means DefaultInterruptEvery.
	InterruptEvery int
}

// DefaultInterruptEvery is Options.InterruptEvery's default: a thousand
// tokens take well under a millisecond to compile.
const DefaultInterruptEvery = 1024

// Error is a compile error, worded exactly as Lua 5.1 words it
// ("user_script:1: '=' expected near 'x'", "constant table overflow").
type Error struct {
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// ErrNoHooks is returned, after the source has compiled and its shape has
// passed FallbackLimits, when gopher-lua's internals are out of reach
// (seam.Enabled is false): the prototype could not run on gopher-lua's VM,
// so the caller compiles the source with gopher-lua's own compiler.
var ErrNoHooks = errors.New("luac: gopher-lua's internals are out of reach; compile with gopher-lua")

// Shape is what a compile measured of its source: what decides whether
// gopher-lua's own compiler can take it (see FallbackLimits).
type Shape struct {
	// Size is the source's length in bytes.
	Size int
	// Depth is the deepest nesting of the source's syntax tree as
	// gopher-lua builds it: syntax levels (blocks, functions, parentheses,
	// right operands) plus the links of the chains they are in (a+b+c is
	// 2 deep, f()()() 3, an if with 10 elseifs 10). gopher-lua's compiler
	// recurses that deep.
	Depth int
	// Items is the most items in one table constructor.
	Items int
	// Constants is the most constants in one function.
	Constants int
}

// FallbackLimits bounds the shape of a source handed to gopher-lua's own
// compiler (when the hooks are off). Its compiler recurses once per level
// of Depth (a Go stack overflow kills the process) and takes time
// quadratic in it, searches its constants linearly (quadratic in
// Constants), loses the items of a constructor past 25,550 (its SETLIST
// block number overflows 9 bits), and is slow on any large source (1.4 s
// for 1 MiB of shallow code on a 2-core machine). Within these limits it
// compiles a source in under a second there; it cannot be interrupted.
var FallbackLimits = Shape{
	Size:      256 << 10,
	Depth:     500,
	Items:     10000,
	Constants: 2000,
}

// Compile compiles Lua 5.1 source to a prototype for gopher-lua's VM, in
// one pass, as Lua 5.1.5's parser and code generator do (lparser.c,
// lcode.c), with their limits and messages. name is the chunk's name as
// lua_load takes it: "@user_script" for a script, loadstring's chunkname
// (the source itself by default). Compile errors name the chunk by
// ChunkID(name, MaxSrc), run-time errors by the prototypes' SourceName,
// ChunkID(name, IDSize), as Lua does.
// Time and memory are linear in the source's size; recursion is bounded by
// Lua's 200 syntax levels.
//
// Errors: *Error for what Lua reports while compiling; Options.Interrupt's
// error; ErrNoHooks (see there); an *Error naming FallbackLimits when the
// hooks are off and the source is too big or too deep for gopher-lua's
// compiler.
func Compile(src []byte, name string, opt Options) (*lua.FunctionProto, error) {
	p, shape, err := compile(src, name, opt)
	if err != nil {
		return nil, err
	}
	if !usable() {
		if err := shape.fits(ChunkID(name, MaxSrc), FallbackLimits); err != nil {
			return nil, err
		}
		return nil, ErrNoHooks
	}
	return p, nil
}

// Measure compiles src as Compile does and returns its shape (tests,
// benchmarks, and the fallback's checks).
func Measure(src []byte, name string, opt Options) (Shape, error) {
	_, shape, err := compile(src, name, opt)
	return shape, err
}

// usable reports whether the prototypes Compile makes can run: gopher-lua's
// unexported string constants can be filled, and its VM flushes table
// constructors in blocks of Lua's size.
func usable() bool {
	return seam.Enabled() && lua.FieldsPerFlush == lfieldsPerFlush
}

func (s Shape) fits(chunk string, max Shape) error {
	var what string
	switch {
	case s.Size > max.Size:
		what = "source longer than " + strconv.Itoa(max.Size) + " bytes"
	case s.Depth > max.Depth:
		what = "nesting deeper than " + strconv.Itoa(max.Depth) + " (chained operators, calls and elseifs count)"
	case s.Items > max.Items:
		what = "a table constructor with more than " + strconv.Itoa(max.Items) + " items"
	case s.Constants > max.Constants:
		what = "a function with more than " + strconv.Itoa(max.Constants) + " constants"
	default:
		return nil
	}
	return &Error{Msg: chunk + ": script too complex for gopher-lua's compiler, which minilock uses when its gopher-lua hooks are off: " + what}
}

// interrupted carries Options.Interrupt's error out of the parser.
type interrupted struct{ err error }

func (ls *lexState) poll() {
	ls.ntokens = 0
	if ls.interrupt != nil {
		if err := ls.interrupt(); err != nil {
			panic(interrupted{err})
		}
	}
}

func compile(src []byte, name string, opt Options) (p *lua.FunctionProto, shape Shape, err error) {
	every := opt.InterruptEvery
	if every <= 0 {
		every = DefaultInterruptEvery
	}
	ls := &lexState{
		src:        src,
		linenumber: 1,
		lastline:   1,
		source:     ChunkID(name, MaxSrc),
		sourceName: ChunkID(name, IDSize),
		nCcalls:    opt.CallDepth,
		names:      make(map[string]string),
		pollAt:     every,
		interrupt:  opt.Interrupt,
		buff:       make([]byte, 0, 32),
	}
	ls.ahead.tok = tkEOS // no look-ahead token
	ls.shape.Size = len(src)
	defer func() {
		if r := recover(); r != nil {
			p = nil
			switch e := r.(type) {
			case *Error:
				err = e
			case interrupted:
				err = e.err
			default:
				// A bug, not the script's fault: reported, never a crash.
				err = &Error{Msg: fmt.Sprintf("%s: internal compiler error: %v", ls.source, r)}
			}
		}
	}()
	ls.next() // read first char
	fs := funcStates.Get().(*funcState)
	ls.openFunc(fs)
	fs.isVararg = varargIsVararg // main function is always vararg
	ls.luaXNext()                // read first token
	ls.chunk()
	ls.check(tkEOS)
	p = ls.closeFunc()
	putFuncState(fs)
	for _, q := range ls.protos {
		seam.SetStringConstants(q)
	}
	return p, ls.shape, nil
}

// The sizes luaO_chunkid is given: LUA_IDSIZE for a function's source in
// run-time messages, llex.c's MAXSRC for compile errors.
const (
	IDSize = 60
	MaxSrc = 80
)

// ChunkID is lobject.c:luaO_chunkid: how a chunk named source is named in
// messages, in at most bufflen-1 bytes: "=name" as name, "@file" as file
// (its end, after "...", when too long), anything else (loadstring's
// source) as [string "its first line..."].
func ChunkID(source string, bufflen int) string {
	if i := strings.IndexByte(source, 0); i >= 0 {
		source = source[:i] // a C string
	}
	switch {
	case strings.HasPrefix(source, "="):
		s := source[1:]
		if len(s) > bufflen-1 {
			s = s[:bufflen-1]
		}
		return s
	case strings.HasPrefix(source, "@"):
		s := source[1:]
		bufflen -= len(" '...' ") + 1
		if len(s) > bufflen {
			s = "..." + s[len(s)-bufflen:]
		}
		return s
	}
	l := strings.IndexAny(source, "\n\r")
	if l < 0 {
		l = len(source)
	}
	bufflen -= len(` [string "..."] `) + 1
	if l > bufflen {
		l = bufflen
	}
	if l < len(source) { // must truncate?
		return `[string "` + source[:l] + `..."]`
	}
	return `[string "` + source + `"]`
}
