package seam

import (
	"context"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// The VM loop.
//
// With a context, gopher-lua's loop (mainLoopWithContext) selects on
// ctx.Done() before every instruction: an interface call and a channel
// receive check that were a quarter of a numeric loop's time. A script's
// state runs pollLoop instead, the same loop reading the context every
// PollEvery instructions: a kill still stops the script well within a
// microsecond of Lua, and the run context counts its polls instead of
// instructions (PollInterval).

// PollEvery is how many instructions pollLoop runs between two reads of
// the context's Done channel.
const PollEvery = 64

// PollInterval is how many instructions run between two calls of a
// script state's context's Done: PollEvery with the hooks, 1 without
// (gopher-lua's own loop).
func PollInterval() int {
	if Enabled() {
		return PollEvery
	}
	return 1
}

// ctxLoopFn is gopher-lua's loop with a context (mainLoopWithContext),
// read from a probe state when the layout is checked.
var ctxLoopFn func(*lua.LState, *callFrame)

func readCtxLoop(probe *lua.LState) {
	probe.SetContext(context.Background())
	ctxLoopFn = stateOf(probe).mainLoop
	probe.RemoveContext()
}

// SetContext is L.SetContext(ctx), with pollLoop as L's VM loop when the
// hooks are on.
func SetContext(L *lua.LState, ctx context.Context) {
	L.SetContext(ctx)
	if Enabled() && ctx != nil {
		stateOf(L).mainLoop = pollLoop
	}
}

// last is the frame on top of a growing call stack
// (autoGrowingCallFrameStack.Last), or nil.
func (s *growStack) last() *callFrame {
	seg, sp := s.segments[s.segIdx], s.segSp
	if sp == 0 {
		if s.segIdx == 0 {
			return nil
		}
		seg, sp = s.segments[s.segIdx-1], lua.FramesPerSegment
	}
	return &(*segment)(seg)[sp-1]
}

// pollLoop is mainLoopWithContext polling every PollEvery instructions.
// A state whose call stack is not of the growing kind, an empty stack and
// a Go function on top go to gopher-lua's loop, which handles them.
func pollLoop(L *lua.LState, baseframe *callFrame) {
	s := stateOf(L)
	gs := growStackOf(L)
	if gs == nil {
		ctxLoopFn(L, baseframe)
		return
	}
	cf := gs.last()
	if cf == nil || cf.Fn.IsG {
		ctxLoopFn(L, baseframe)
		return
	}
	s.currentFrame = cf
	base := unsafe.Pointer(baseframe)
	n := PollEvery
	for {
		cf = s.currentFrame
		inst := cf.Fn.Proto.Code[cf.Pc]
		cf.Pc++
		if n--; n == 0 {
			n = PollEvery
			if ctx := L.Context(); ctx != nil {
				select {
				case <-ctx.Done():
					L.RaiseError("%s", ctx.Err().Error())
					return
				default:
				}
			}
		}
		if jumpTable[inst>>26](L, inst, base) == 1 {
			return
		}
	}
}
