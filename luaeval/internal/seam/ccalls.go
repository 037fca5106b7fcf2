package seam

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Metamethods as C calls.
//
// Lua 5.1 calls every metamethod, and the generic for's iterator, through
// luaD_call, which counts the call against LUAI_MAXCCALLS (200: "C stack
// overflow") and makes it a boundary no coroutine may yield across.
// gopher-lua calls them as plain Lua calls, so a recursive __index function
// ran to the 20,000-frame call limit (deep in Go recursion) and a yield
// inside one was let through. Each VM instruction that may call one is
// hooked here and counts the call (lauxlib.EnterC) exactly when it is
// made: when the metamethod found is a function, as Lua would call it.
// __index and __newindex chains are table.go's (getTable, setTable), with
// Lua's MAXTAGLOOP and its "loop in gettable" / "loop in settable".
func installCCalls() {
	// t.name and obj:name(): gopher-lua's getFieldString would call an
	// __index function uncounted.
	hook(lua.OP_GETTABLEKS, indexHook)
	hook(lua.OP_SELF, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			f := frameOf(L)
			obj := f.get(OpB(inst))
			v := index(L, obj, f.rk(OpC(inst)))
			f = frameOf(L) // the call may have grown the value stack
			f.set(OpA(inst)+1, obj)
			f.set(OpA(inst), v)
			return 0
		}
	})
	hook(lua.OP_EQ, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			f := frameOf(L)
			lhs, rhs := f.rk(OpB(inst)), f.rk(OpC(inst))
			if x, ok := lhs.(lua.LNumber); ok {
				// The common case, decided here rather than after a
				// second decoding of the instruction.
				y, ok := rhs.(lua.LNumber)
				f.condJump(inst, ok && x == y)
				return 0
			}
			if eqCalls(L, lhs, rhs) {
				return callOrig(L, orig, inst, baseframe)
			}
			return orig(L, inst, baseframe)
		}
	})
	// lvm.c's call_orderTM: both operands of one type with the same
	// function; `<=` tries __le, then __lt.
	compare := func(less func(x, y lua.LNumber) bool, events ...string) func(orig instFunc) instFunc {
		return func(orig instFunc) instFunc {
			return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
				if !ours(L) {
					return orig(L, inst, baseframe)
				}
				f := frameOf(L)
				lhs, rhs := f.rk(OpB(inst)), f.rk(OpC(inst))
				if x, ok := lhs.(lua.LNumber); ok {
					if y, ok := rhs.(lua.LNumber); ok {
						f.condJump(inst, less(x, y))
						return 0
					}
				}
				for _, ev := range events {
					if sameMetaFunc(L, lhs, rhs, ev) {
						return callOrig(L, orig, inst, baseframe)
					}
				}
				return orig(L, inst, baseframe)
			}
		}
	}
	hook(lua.OP_LT, compare(func(x, y lua.LNumber) bool { return x < y }, "__lt"))
	hook(lua.OP_LE, compare(func(x, y lua.LNumber) bool { return x <= y }, "__le", "__lt"))
	// The generic for calls its iterator through luaD_call (lvm.c's
	// OP_TFORLOOP): a C boundary.
	hook(lua.OP_TFORLOOP, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if !ours(L) {
				return orig(L, inst, baseframe)
			}
			return callOrig(L, orig, inst, baseframe)
		}
	})
}

// index is luaV_gettable: obj[key], through __index.
func index(L *lua.LState, obj, key lua.LValue) lua.LValue {
	if t, ok := obj.(*lua.LTable); ok {
		if v := Get(t, key); v != lua.LNil || noMeta(t) {
			return v
		}
	}
	return getTable(L, obj, key)
}

// eqCalls reports whether lvm.c's equalobj would call an __eq metamethod
// for lhs == rhs: two different tables (or userdata) whose metatables
// give the same __eq function (get_compTM).
func eqCalls(L *lua.LState, lhs, rhs lua.LValue) bool {
	return lhs != rhs && sameMetaFunc(L, lhs, rhs, "__eq")
}

// sameMetaFunc reports whether lhs and rhs are tables (or both userdata)
// whose metatables give the same function for event.
func sameMetaFunc(L *lua.LState, lhs, rhs lua.LValue, event string) bool {
	switch lhs.(type) {
	case *lua.LTable, *lua.LUserData:
	default:
		return false
	}
	if lhs.Type() != rhs.Type() {
		return false
	}
	m := L.GetMetaField(lhs, event)
	return m.Type() == lua.LTFunction && m == L.GetMetaField(rhs, event)
}

// metaFunc reports whether v's metatable has a function for event.
func metaFunc(L *lua.LState, v lua.LValue, event string) bool {
	return L.GetMetaField(v, event).Type() == lua.LTFunction
}

// callOrig runs the VM's own handler for an instruction that will call a
// metamethod, counted as a C call.
func callOrig(L *lua.LState, orig instFunc, inst uint32, baseframe unsafe.Pointer) int {
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	return orig(L, inst, baseframe)
}

// metaCall calls the function below the nargs values on top of L's stack,
// counted as a C call (callTM, callTMres), with nret results.
func metaCall(L *lua.LState, nargs, nret int) {
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	L.Call(nargs, nret)
}

// condJump ends a comparison instruction as lvm.c's OP_EQ, OP_LT and OP_LE
// do: the next instruction (a jump) is skipped when the result differs
// from A.
func (f frame) condJump(inst uint32, result bool) {
	if result != (OpA(inst) != 0) {
		f.cf.Pc++
	}
}

// Open upvalues and caught errors.
//
// gopher-lua's raiseError and Error close the open upvalues of every frame
// up to the thread's root when no message handler is set
// (closeAllUpvalues), as if every frame were being unwound. Lua 5.1 closes
// only those of the frames its pcall unwinds (luaD_pcall's
// luaF_close(L, oldtop)): a closure over a local of a frame outside the
// pcall stays linked to it. So a script's protected calls run with the
// state's handler flag set (KeepUpvalues), which keeps gopher-lua from
// closing anything, and the function that catches closes the upvalues of
// the frames it unwinds itself (CloseUpvalues), while their registers still
// hold the values they had when the error was raised.

// KeepUpvalues sets whether an error raised on L leaves the open upvalues
// for the catcher to close, and returns the previous setting. gopher-lua's
// PCall clears it when it returns; its callers put the previous one back.
func KeepUpvalues(L *lua.LState, on bool) bool {
	s := stateOf(L)
	prev := s.hasErrorFunc
	s.hasErrorFunc = on
	return prev
}

// FrameBase is the register index of the running frame's first local: a
// protected call's catcher closes the upvalues from there up.
func FrameBase(L *lua.LState) int { return stateOf(L).currentFrame.LocalBase }

// CloseUpvalues closes L's open upvalues at register idx and above.
func CloseUpvalues(L *lua.LState, idx int) { closeUpvalues(L, idx) }
