package seam

import (
	"reflect"

	lua "github.com/yuin/gopher-lua"
)

// fixedStack mirrors gopher-lua's fixedCallFrameStack (state.go), the call
// stack of a state made without MinimizeStackMemory: a frame array whose
// length is the most frames the state may hold.
type fixedStack struct {
	array []callFrame
	sp    int
}

// SetCallLimit lets L hold at most n call frames from now on (for a fixed
// call stack at most the CallStackSize it was made with, and never fewer
// than it holds now); the next call past them fails with "stack overflow".
// A growing call stack (a coroutine's, see costack.go) keeps its limit in
// L.Options.CallStackSize. It reports false, and changes nothing, when the
// hooks are off.
//
// Lua 5.1 doubles its call-info array and fails when the doubling would
// pass LUAI_MAXCALLS, so a fresh state overflows at 16,384 frames; after
// the first overflow luaD_pcall leaves the array at exactly LUAI_MAXCALLS
// (restore_stack_limit), and every later overflow comes at 20,000. The
// engine reproduces that history through this call.
func SetCallLimit(L *lua.LState, n int) bool {
	if !Enabled() {
		return false
	}
	// The field is a non-empty interface (callFrameStack): its dynamic
	// value is read through reflect, not through the mirror's any.
	sv := reflect.ValueOf(L).Elem().FieldByName("stack")
	if sv.Kind() != reflect.Interface || sv.IsNil() {
		return false
	}
	if growStackOf(L) != nil {
		L.Options.CallStackSize = n
		return true
	}
	v := sv.Elem()
	if v.Kind() != reflect.Pointer || v.Type().Elem().Name() != "fixedCallFrameStack" ||
		sameLayout(v.Type().Elem(), reflect.TypeOf(fixedStack{})) != "" {
		return false
	}
	fs := (*fixedStack)(v.UnsafePointer())
	fs.array = fs.array[:min(max(n, fs.sp+1), cap(fs.array))]
	return true
}
