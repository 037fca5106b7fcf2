package seam

import lua "github.com/yuin/gopher-lua"

// EnterGo pushes a frame for the Go function fn, which is on top of the
// value stack, on the empty call stack of a main state, without calling
// it, and reports whether it could (false when the state's call stack is
// not the growing kind or is not empty). What the caller then calls from
// Go runs above that frame as it would inside a call of fn: the scripts'
// runner (luaeval's runScript) stands in the call stack this way for Lua's
// base call info, without the two nested protected calls (PCall, then the
// runner's own call) that calling it costs every run.
func EnterGo(L *lua.LState, fn *lua.LFunction) bool {
	s := stateOf(L)
	gs := growStackOf(L)
	if gs == nil || s.currentFrame != nil || gs.depth() != 0 || len(gs.segments) == 0 || gs.segments[0] == nil {
		return false
	}
	nf := pushFrame(L, gs, nil, fn, s.reg.top-1, 0, 1)
	if nf == nil {
		return false
	}
	s.currentFrame = nf
	return true
}

// LeaveGo empties the call stack EnterGo began, with whatever frames an
// error left above it, as PCall's unwinding does (callFrameStack.SetSp(0)):
// the segments past the first are dropped.
func LeaveGo(L *lua.LState) {
	s := stateOf(L)
	gs := growStackOf(L)
	for i := int(gs.segIdx); i > 0; i-- {
		gs.segments[i] = nil
	}
	gs.segIdx, gs.segSp = 0, 0
	s.currentFrame = nil
}
