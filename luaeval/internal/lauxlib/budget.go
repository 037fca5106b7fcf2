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
}

// unlimited is the budget of a state that is not running an engine's
// script (tests of a library on a bare gopher-lua state).
type unlimited struct{}

func (unlimited) Alloc(int) bool { return true }
func (unlimited) Stopped() error { return nil }

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
