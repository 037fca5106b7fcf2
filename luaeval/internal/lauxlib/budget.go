package lauxlib

import (
	lua "github.com/yuin/gopher-lua"
)

// ErrNoMemory is the message a library raises when an allocation would take
// the script past its limits. It reads like Lua's own memory error (no
// position), which Redis reports as "ERR not enough memory".
const ErrNoMemory = "not enough memory"

// Budget is the running script's allowance. The engine's run context
// (L.Context()) implements it; library code reaches it through Alloc and
// Poll, never directly.
type Budget interface {
	// Alloc is told, before a library allocates them, about n bytes the
	// script will hold (a string or table being built). It returns false
	// when they would take the script past its limits: one string longer
	// than the string limit, or the run past its memory limit.
	Alloc(n int) bool
	// Stopped reports whether the script has been stopped (SCRIPT KILL,
	// SHUTDOWN NOSAVE, the memory watchdog). Long loops in Go poll it.
	Stopped() error
	// CCalls is thread L's count of calls through C boundaries (Lua 5.1's
	// L->nCcalls and L->baseCcalls); see EnterC.
	CCalls(L *lua.LState) *CCount
}

// CCount is one thread's count of nested calls through C boundaries. N is
// Lua 5.1's nCcalls: a coroutine starts each resume one above its
// resumer's count (lua_setlevel, then lua_resume's increment), so the
// limit holds across coroutines resumed inside coroutines. Base is
// baseCcalls, N as the thread was last resumed: a thread may yield only
// when N is back at Base.
//
// Hidden counts the frames of the engine's own on the thread's call stack
// that Lua 5.1 has no call info for (the runner of a protected call): a
// thread's call limit is counted without them.
//
// Raising says an error is unwinding the thread's C calls (or was, until
// something caught it: whoever catches one clears it), and RaisedAt is N
// where it was raised. Lua 5.1 calls the error handler in effect one C
// call deeper than that, so an error raised at MaxCCalls-1 becomes "C
// stack overflow" when it reaches a handler.
//
// RaisedWhere is the position of the function running where it was raised
// (none for a Go function), which luaG_runerror puts before "C stack
// overflow" when the handler's call is the one that overflows.
type CCount struct {
	N, Base, Hidden int
	Raising         bool
	RaisedAt        int
	RaisedWhere     string
}

// unlimited is the budget of a state that is not running an engine's
// script (tests of a library on a bare gopher-lua state).
type unlimited struct{}

func (unlimited) Alloc(int) bool { return true }
func (unlimited) Stopped() error { return nil }

// CCalls counts nothing: a bare state has gopher-lua's own stack limits.
func (unlimited) CCalls(*lua.LState) *CCount { return new(CCount) }

// Of returns the budget of the script L runs.
func Of(L *lua.LState) Budget {
	if b, ok := L.Context().(Budget); ok {
		return b
	}
	return unlimited{}
}

// Alloc charges n bytes to L's script before a library allocates them, and
// raises ErrNoMemory when the script may not have them.
func Alloc(L *lua.LState, n int) {
	if n < 0 || !Of(L).Alloc(n) {
		NoMemory(L)
	}
}

// NoMemory raises Lua's memory error.
func NoMemory(L *lua.LState) {
	L.Error(lua.LString(ErrNoMemory), 0)
}

// PollEvery is how many steps of a long Go loop may pass between two polls
// of the budget: a poll is an interface call and an atomic load, and a
// thousand steps of any library loop take well under a millisecond.
const PollEvery = 1024

// Poll raises the stop error when L's script has been stopped. Loops whose
// length a script controls call it every PollEvery steps, so SCRIPT KILL
// ends a script inside a library function as promptly as between two
// instructions.
func Poll(L *lua.LState) {
	if err := Of(L).Stopped(); err != nil {
		L.RaiseError("%s", err.Error())
	}
}

// MaxCCalls is Lua 5.1's LUAI_MAXCCALLS: how many calls through C
// boundaries may nest in one thread.
const MaxCCalls = 200

// EnterC counts one more call through a C boundary in L's thread, where Lua
// 5.1's luaD_call counts one: pcall, xpcall and its handler, a metamethod
// the VM calls, a comparator table.sort calls, a function gsub calls ...
// The MaxCCalls-th raises "C stack overflow" (with the position of the
// running Lua function, when a Lua function is running, as luaG_runerror
// gives it); while handling that error, MaxCCalls/8 more are allowed
// before "error in error handling". Every EnterC is paired with a LeaveC,
// deferred before EnterC is called (EnterC counts before it raises), so
// that it runs when an error unwinds:
//
//	defer lauxlib.LeaveC(L)
//	lauxlib.EnterC(L)
func EnterC(L *lua.LState) {
	n := &Of(L).CCalls(L).N
	*n++
	switch {
	case *n == MaxCCalls:
		L.Error(lua.LString(Where(L, 0)+"C stack overflow"), 0)
	case *n >= MaxCCalls+MaxCCalls>>3:
		L.Error(lua.LString("error in error handling"), 0)
	}
	ReserveCall(L)
}

// ReserveCall makes room in L's call stack for the call a C boundary is
// about to make, or raises "stack overflow" when L is at its limit. Package
// seam sets it when its hooks are on: a coroutine's call stack starts at
// one segment and grows on demand (seam.ReserveCall); without the hooks
// gopher-lua's fixed stacks need nothing.
var ReserveCall = func(*lua.LState) {}

// LeaveC undoes EnterC. Deferred, it is the first to see an error raised
// inside the innermost C call, and notes its depth (CCount.RaisedAt)
// before passing it on.
func LeaveC(L *lua.LState) {
	c := Of(L).CCalls(L)
	if r := recover(); r != nil {
		if !c.Raising {
			// The raising frames are still on L's call stack: only a
			// protected call, further out, unwinds them.
			c.Raising, c.RaisedAt, c.RaisedWhere = true, c.N, Where(L, 0)
		}
		c.N--
		panic(r)
	}
	c.N--
}

// InC reports whether L's thread is inside a call through a C boundary
// entered since it was resumed, which Lua 5.1 does not let a coroutine
// yield across.
func InC(L *lua.LState) bool {
	c := Of(L).CCalls(L)
	return c.N > c.Base
}
