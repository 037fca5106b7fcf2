package seam

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Coroutine call stacks that grow.
//
// gopher-lua gives every thread a call stack sized by Options.CallStackSize
// up front: the fixed kind allocates all its frames (80 bytes each), and
// the growing kind (MinimizeStackMemory) allocates a segment-pointer slice
// for all of them and never reports overflow (its IsFull is never true: a
// push past the slice panics). Lua 5.1 starts a coroutine with 8 call
// infos and doubles them as it goes. minilock makes coroutines with a
// growing stack of one segment and widens its segment slice here, just
// before the calls that may need it: the VM's calls (OP_CALL, OP_TAILCALL,
// the generic for's iterator, hooked below) and every C boundary
// (lauxlib.EnterC, set to ReserveCall at install). The thread's limit is
// its Options.CallStackSize (SetCallLimit), past which a call fails with
// Lua's "stack overflow".

// growStack mirrors gopher-lua's autoGrowingCallFrameStack (state.go). Its
// segments are only appended to here (nil entries, which Push fills), never
// read, so their element type need not be mirrored.
type growStack struct {
	segments []unsafe.Pointer
	segIdx   uint16
	segSp    uint8
}

// ifaceWords is an interface value as the machine holds it.
type ifaceWords struct{ tab, data unsafe.Pointer }

// growTab is the interface table word of a growing call stack held in
// LState.stack, read from a probe state when the layout is checked: a
// state's stack is of the growing kind when its word is this one.
var growTab unsafe.Pointer

// callSlack is how many frames beyond the current depth are made room for
// at each reserve: what Go functions may push before the next reserve (a
// pcall pushes its runner and the function it calls).
const callSlack = 16

// checkGrowStack checks the growing call stack's layout and records its
// interface table word.
func checkGrowStack() string {
	probe := lua.NewState(lua.Options{SkipOpenLibs: true, MinimizeStackMemory: true, CallStackSize: lua.FramesPerSegment})
	defer probe.Close()
	sv := reflect.ValueOf(probe).Elem().FieldByName("stack")
	if sv.Kind() != reflect.Interface || sv.IsNil() || sv.Elem().Kind() != reflect.Pointer {
		return "gopher-lua's LState.stack is not an interface holding a pointer"
	}
	real := sv.Elem().Type().Elem()
	if real.Name() != "autoGrowingCallFrameStack" {
		return "gopher-lua's growing call stack is a " + real.Name()
	}
	if msg := sameLayout(real, reflect.TypeOf(growStack{})); msg != "" {
		return "gopher-lua's autoGrowingCallFrameStack is not the layout the hooks were written for: " + msg
	}
	if seg := real.Field(0).Type.Elem(); seg.Kind() != reflect.Pointer || seg.Elem().Size() != unsafe.Sizeof(segment{}) {
		return "gopher-lua's call stack segment is not " + fmt.Sprint(lua.FramesPerSegment) + " call frames"
	}
	growTab = (*ifaceWords)(unsafe.Pointer(&stateOf(probe).stack)).tab
	handlerTab = (*ifaceWords)(unsafe.Pointer(&stateOf(probe).reg.handler)).tab
	panicFn = probe.Panic
	mainLoopFn = stateOf(probe).mainLoop
	readCtxLoop(probe)
	return ""
}

// segment mirrors gopher-lua's callFrameStackSegment.
type segment [lua.FramesPerSegment]callFrame

var (
	// handlerTab is the interface table word of an *LState held as its
	// registry's registryHandler.
	handlerTab unsafe.Pointer
	// panicFn is what a new state's Panic is (panicWithTraceback).
	panicFn func(*lua.LState)
	// mainLoopFn is a state's VM loop without a context (mainLoop).
	mainLoopFn func(*lua.LState, *callFrame)
)

// NewThread is gopher-lua's coroutine.create(fn) without its cost: a
// thread sharing L's globals, environment and number allocator, with a
// growing call stack of one segment holding fn's frame, a value stack of
// opts.RegistrySize slots (growing by opts.RegistryGrowStep up to
// opts.RegistryMaxSize) and a call limit of opts.CallStackSize frames.
// LState.NewThread builds a whole new global state for every thread only
// to drop it (two tables and a map: 7 KB of garbage per coroutine, four
// times what the thread keeps), and a number allocator of its own. It
// returns nil when the hooks are off.
func NewThread(L *lua.LState, fn *lua.LFunction, opts lua.Options) *lua.LState {
	if !Enabled() {
		return nil
	}
	th := new(lua.LState)
	parent := stateOf(L)
	s := stateOf(th)
	s.G, s.Env, s.Panic, s.Options = parent.G, parent.Env, panicFn, opts
	s.alloc = parent.alloc
	reg := &registry{
		array:   make([]lua.LValue, opts.RegistrySize),
		growBy:  opts.RegistryGrowStep,
		maxSize: opts.RegistryMaxSize,
		alloc:   parent.alloc,
	}
	*(*ifaceWords)(unsafe.Pointer(&reg.handler)) = ifaceWords{handlerTab, unsafe.Pointer(th)}
	s.reg = reg
	// coCreate's first frame: fn, called with its arguments at resume.
	seg := &segment{{Fn: fn, LocalBase: 1, NRet: lua.MultRet}}
	gs := &growStack{segments: []unsafe.Pointer{unsafe.Pointer(seg)}, segSp: 1}
	*(*ifaceWords)(unsafe.Pointer(&s.stack)) = ifaceWords{growTab, unsafe.Pointer(gs)}
	s.mainLoop = mainLoopFn
	if ctx := L.Context(); ctx != nil {
		th.SetContext(ctx)
		s.mainLoop = pollLoop
	}
	return th
}

// growStackOf is L's call stack when it is of the growing kind, else nil.
func growStackOf(L *lua.LState) *growStack {
	w := (*ifaceWords)(unsafe.Pointer(&stateOf(L).stack))
	if w.tab != growTab || growTab == nil {
		return nil
	}
	return (*growStack)(w.data)
}

func (s *growStack) depth() int {
	return int(s.segIdx)*lua.FramesPerSegment + int(s.segSp)
}

// ReserveCall is lauxlib.ReserveCall (see the top of this file): for a
// thread with a growing call stack, it raises "stack overflow" when the
// thread holds its limit of frames, and otherwise makes room for
// callSlack more. It also lets the thread's value stack grow by doubling
// (gopher-lua grows it by a fixed step, which deep recursion in a
// coroutine would make quadratic).
func ReserveCall(L *lua.LState) {
	if s := growStackOf(L); s != nil {
		reserve(L, s)
	}
}

func reserve(L *lua.LState, s *growStack) {
	// Nothing to do, the case of almost every call: below the limit, the
	// slack's frames already there, the value stack already doubling.
	if d := s.depth(); d < L.Options.CallStackSize && d+callSlack <= len(s.segments)*lua.FramesPerSegment {
		if r := stateOf(L).reg; r.growBy >= len(r.array) {
			return
		}
	}
	reserveSlow(L, s)
}

func reserveSlow(L *lua.LState, s *growStack) {
	d := s.depth()
	limit := L.Options.CallStackSize
	if d >= limit {
		// Near the limit only: the frames Lua has no call info for
		// (pcall's runner) do not count.
		limit += lauxlib.Of(L).CCalls(L).Hidden
	}
	if d >= limit {
		// luaD_growCI's error, raised by luaG_runerror: with the position
		// of the running function when that is a Lua function.
		L.Error(lua.LString(lauxlib.Where(L, 0)+"stack overflow"), 0)
	}
	// Frames past the limit are for the Go functions (pcall's runner, a
	// metamethod) between a call that was let through and the next
	// check; the Lua calls themselves stop at the limit.
	if need := (min(d+callSlack, limit+callSlack) + lua.FramesPerSegment - 1) / lua.FramesPerSegment; need > len(s.segments) {
		n := min(max(need, 2*len(s.segments)), (limit+callSlack+lua.FramesPerSegment-1)/lua.FramesPerSegment)
		s.segments = append(s.segments, make([]unsafe.Pointer, n-len(s.segments))...)
	}
	if r := stateOf(L).reg; r.growBy < len(r.array) {
		r.growBy = len(r.array)
	}
}

// installCallStacks hooks the VM's calls so that a coroutine's call stack
// has room for them (see the top of this file).
func installCallStacks() {
	lauxlib.ReserveCall = ReserveCall
	hook(lua.OP_CALL, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if s := growStackOf(L); s != nil && ours(L) {
				reserve(L, s)
			}
			return orig(L, inst, baseframe)
		}
	})
	hook(lua.OP_TAILCALL, func(orig instFunc) instFunc {
		return func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			if s := growStackOf(L); s != nil && ours(L) {
				reserve(L, s)
				if cf := stateOf(L).currentFrame; cf != nil && !cf.Fn.IsG && cf.Fn.Proto == transparent.Load() {
					r := orig(L, inst, baseframe)
					if cf := stateOf(L).currentFrame; cf != nil && cf.TailCall > 0 {
						cf.TailCall--
					}
					return r
				}
			}
			return orig(L, inst, baseframe)
		}
	})
}

// transparent is the function prototype whose tail calls leave no trace
// (see SetTransparent).
var transparent atomic.Pointer[lua.FunctionProto]

// SetTransparent names the prototype of the function a coroutine starts in
// before its own (the engine's trampoline, which sets the thread up and
// tail-calls the coroutine's function): its tail call is not counted, so
// that the coroutine's function is the thread's base level, as in Lua
// 5.1, and a level past it (error(msg, 2)) has no position.
func SetTransparent(p *lua.FunctionProto) { transparent.Store(p) }

// Started reports whether thread L has run (gopher-lua's isStarted): a
// coroutine that was never resumed has no current frame. It reports true
// when the hooks are off.
func Started(L *lua.LState) bool {
	return !Enabled() || stateOf(L).currentFrame != nil
}
