package seam

import (
	"fmt"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Mirrors of gopher-lua v1.1.2's unexported structs, field for field.
// checkLayout compares each with the real type before any of them is used.

// lTable mirrors lua.LTable (value.go).
type lTable struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

// lState mirrors lua.LState (value.go).
type lState struct {
	G            *lua.Global
	Parent       *lua.LState
	Env          *lua.LTable
	Panic        func(*lua.LState)
	Dead         bool
	Options      lua.Options
	stop         int32
	reg          *registry
	stack        any // callFrameStack, an interface
	alloc        *allocator
	currentFrame *callFrame
	wrapped      bool
	uvcache      *lua.Upvalue
	hasErrorFunc bool
	mainLoop     func(*lua.LState, *callFrame)
	ctx          any // context.Context, an interface
	ctxCancelFn  func()
}

// registry mirrors gopher-lua's registry (state.go): the value stack.
type registry struct {
	array   []lua.LValue
	top     int
	growBy  int
	maxSize int
	alloc   *allocator
	handler any // registryHandler, an interface
}

// allocator mirrors gopher-lua's allocator (alloc.go): the blocks of
// floats a state's numbers are boxed in.
type allocator struct {
	size          int
	fptrs         []float64
	fheader       *reflect.SliceHeader
	scratchValue  lua.LValue
	scratchValueP *ifaceWords
}

// callFrame mirrors gopher-lua's callFrame (state.go).
type callFrame struct {
	Idx        int
	Fn         *lua.LFunction
	Parent     *callFrame
	Pc         int
	Base       int
	LocalBase  int
	ReturnBase int
	NArgs      int
	NRet       int
	TailCall   int
}

// upvalue mirrors lua.Upvalue (function.go).
type upvalue struct {
	next   *lua.Upvalue
	reg    *registry
	index  int
	value  lua.LValue
	closed bool
}

// debugInfo mirrors lua.Debug (state.go).
type debugInfo struct {
	frame           *callFrame
	Name            string
	What            string
	Source          string
	CurrentLine     int
	NUpvalues       int
	LineDefined     int
	LastLineDefined int
}

// functionProto mirrors lua.FunctionProto (function.go).
type functionProto struct {
	SourceName         string
	LineDefined        int
	LastLineDefined    int
	NumUpvalues        uint8
	NumParameters      uint8
	IsVarArg           uint8
	NumUsedRegisters   uint8
	Code               []uint32
	Constants          []lua.LValue
	FunctionPrototypes []*lua.FunctionProto
	DbgSourcePositions []int
	DbgLocals          []*lua.DbgLocalInfo
	DbgCalls           []lua.DbgCall
	DbgUpvalues        []string
	stringConstants    []string
}

func tableOf(t *lua.LTable) *lTable               { return (*lTable)(unsafe.Pointer(t)) }
func stateOf(L *lua.LState) *lState               { return (*lState)(unsafe.Pointer(L)) }
func protoOf(p *lua.FunctionProto) *functionProto { return (*functionProto)(unsafe.Pointer(p)) }
func debugOf(d *lua.Debug) *debugInfo             { return (*debugInfo)(unsafe.Pointer(d)) }
func upvalueOf(u *lua.Upvalue) *upvalue           { return (*upvalue)(unsafe.Pointer(u)) }

// checkLayout compares every mirror with the type it stands for: the same
// size, and the same fields (names, offsets, sizes, kinds) in the same
// order. It returns "" when all match.
func checkLayout() string {
	stateT := reflect.TypeOf(lua.LState{})
	regT := fieldType(stateT, "reg")
	frameT := fieldType(stateT, "currentFrame")
	allocT := fieldType(stateT, "alloc")
	if regT == nil || frameT == nil || allocT == nil {
		return "gopher-lua's LState has no reg, currentFrame or alloc field"
	}
	for _, p := range []struct {
		real, mirror reflect.Type
	}{
		{reflect.TypeOf(lua.LTable{}), reflect.TypeOf(lTable{})},
		{stateT, reflect.TypeOf(lState{})},
		{regT.Elem(), reflect.TypeOf(registry{})},
		{frameT.Elem(), reflect.TypeOf(callFrame{})},
		{allocT.Elem(), reflect.TypeOf(allocator{})},
		{reflect.TypeOf(lua.Debug{}), reflect.TypeOf(debugInfo{})},
		{reflect.TypeOf(lua.FunctionProto{}), reflect.TypeOf(functionProto{})},
		{reflect.TypeOf(lua.Upvalue{}), reflect.TypeOf(upvalue{})},
	} {
		if msg := sameLayout(p.real, p.mirror); msg != "" {
			return "gopher-lua's " + p.real.Name() + " is not the layout the hooks were written for: " + msg
		}
	}
	return ""
}

func fieldType(t reflect.Type, name string) reflect.Type {
	f, ok := t.FieldByName(name)
	if !ok || f.Type.Kind() != reflect.Pointer {
		return nil
	}
	return f.Type
}

func sameLayout(real, mirror reflect.Type) string {
	if real.Size() != mirror.Size() || real.NumField() != mirror.NumField() {
		return fmt.Sprintf("size %d with %d fields, mirror %d with %d", real.Size(), real.NumField(), mirror.Size(), mirror.NumField())
	}
	for i := 0; i < real.NumField(); i++ {
		r, m := real.Field(i), mirror.Field(i)
		if r.Name != m.Name || r.Offset != m.Offset || r.Type.Size() != m.Type.Size() || r.Type.Kind() != m.Type.Kind() {
			return fmt.Sprintf("field %d is %s %s at %d, mirror %s %s at %d", i, r.Name, r.Type, r.Offset, m.Name, m.Type, m.Offset)
		}
		// Exported types are the same type; unexported ones are mirrored
		// by kind above (their own layouts are checked separately).
		if r.Type.PkgPath() == "" && r.Type.Name() != "" && r.Type != m.Type {
			return fmt.Sprintf("field %s is %s, mirror %s", r.Name, r.Type, m.Type)
		}
	}
	return ""
}
